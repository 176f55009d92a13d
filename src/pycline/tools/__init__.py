"""Tools the model can call: one module per family, each a spec plus an executor."""
