"""Where an evaluation's items are scored: this process (the default) or a Ray cluster.

``RayEngine`` is importable without Ray; Ray is imported when a run starts.
"""

from troth.engines.ray import RayEngine

__all__ = ["RayEngine"]
