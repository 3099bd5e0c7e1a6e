"""Judge backends, one module each; :mod:`troth.judges.registry` names them (imported lazily)."""
