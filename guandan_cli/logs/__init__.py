"""The log format: one declared schema (versioned) shared by the writer and every reader."""
