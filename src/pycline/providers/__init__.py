"""Model providers behind one streaming `Provider` protocol."""
