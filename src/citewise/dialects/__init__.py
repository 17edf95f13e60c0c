"""Wire formats: one pure serialiser per dialect over citewise's events and Answer."""
