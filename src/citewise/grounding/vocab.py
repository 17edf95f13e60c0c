"""The RDF vocabulary of citewise's provenance: PROV-O, Dublin Core terms and our own."""

from __future__ import annotations

__all__ = ["CW", "DCT", "GRAPH", "PREFIXES", "PROV", "RDF_TYPE", "XSD"]

#: The named graph of query-time explainability (TrustGraph's well-known graph, seed 000).
GRAPH = "urn:graph:retrieval"
PROV = "http://www.w3.org/ns/prov#"
#: citewise's own properties and classes (``cw:latencyMs``, ``cw:Claim`` …).
CW = "urn:citewise:vocab#"
DCT = "http://purl.org/dc/terms/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
XSD = "http://www.w3.org/2001/XMLSchema#"
PREFIXES = {"prov": PROV, "cw": CW, "dcterms": DCT, "xsd": XSD}
