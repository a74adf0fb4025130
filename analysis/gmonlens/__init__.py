"""gmonlens engine: GNU gprof's flat profile and call graph, computed exactly."""

__version__ = "0.1.0"
