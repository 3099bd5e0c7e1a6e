"""Prompt templates and output schemas, one module per scorer, each with a VERSION."""
