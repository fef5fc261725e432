"""COBRA launch files, configuration and the pip-mode runner."""
