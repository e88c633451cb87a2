"""The versa dialect: op definitions (`versa.py`), shape rules (`shapes.py`), NumPy reference
semantics (`semantics.py`) and the exported IRDL (`versa.irdl.mlir`)."""
