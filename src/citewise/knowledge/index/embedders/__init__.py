"""Text embedders behind one seam (:mod:`.base`): the packaged all-MiniLM-L6-v2 int8 ONNX
model (:mod:`.minilm`, the default) and the others a knowledge base may be opened with."""
