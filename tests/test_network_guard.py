import socket

import pytest


def test_non_loopback_connections_are_refused() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(RuntimeError, match="only connect to loopback"):
            sock.connect(("192.0.2.1", 443))
    finally:
        sock.close()
