"""The built-in local model: pinned model files, the llama-server runtime, its lifecycle, and
discovery of local servers already running."""
