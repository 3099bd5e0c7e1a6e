"""Where an evaluation's items are scored: this process (``LocalEngine``, the default) or a Ray
cluster (``RayEngine``), both behind the :class:`~troth.engines.base.Engine` protocol.

``base`` (the protocol and the job), ``item`` (one item scored, one outcome saved: the two steps
every engine and live scoring share), ``targets`` (calling a target), ``local``, ``ray`` and
``worker`` (Ray's scoring actor). ``RayEngine`` is importable without Ray; Ray is imported when
a run starts.
"""

from troth.engines.local import LocalEngine
from troth.engines.ray import RayEngine

__all__ = ["LocalEngine", "RayEngine"]
