"""System prompt sections and the fixed texts sent to the model."""
