"""Live scoring: :class:`Monitor` (sampled, off the request path), :class:`Sampling`, :class:`Budget`."""

from troth.live.budget import Budget
from troth.live.monitor import Monitor, MonitorStats
from troth.live.sampling import Sampling

__all__ = ["Budget", "Monitor", "MonitorStats", "Sampling"]
