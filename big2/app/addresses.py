"""Which addresses ``big2 serve`` listens on and answers to: loopback unless asked.

>>> host_and_port("localhost:8765", 80), is_loopback("0.0.0.0")
(('localhost', 8765), False)
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) reaches this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("[::1]"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def exposure_problem(host: str, allow_network: bool) -> str:
    """Why listening on ``host`` is refused ("" when it is not): only loopback, unless
    ``allow_network``."""
    if allow_network or is_loopback(host):
        return ""
    shown = host or "every address"
    return (
        f"--host {shown} is reachable from other machines, and this server has no "
        f"password: anyone who can reach it could play, read every saved game and "
        f"start games that write files. Listen on 127.0.0.1 (the default), or pass "
        f"--allow-network to serve the network anyway"
    )


def host_and_port(text: str, default_port: int) -> tuple[str, int] | None:
    """``(name, port)`` of a ``Host`` header or ``--allow-host`` value (lower case, IPv6
    without brackets), or None when it is not ``NAME`` or ``NAME:PORT``.

    >>> host_and_port("LocalHost:8765", 80), host_and_port("[::1]", 80)
    (('localhost', 8765), ('::1', 80))
    >>> host_and_port("evil.example@127.0.0.1:8765", 80) is None
    True
    """
    try:
        parts = urlsplit("//" + text)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or "@" in parts.netloc or parts.path or parts.query or parts.fragment:
        return None
    return parts.hostname, default_port if port is None else port


def is_ip(name: str) -> bool:
    """Whether ``name`` is an IP address (not a host name)."""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def wildcard(host: str) -> bool:
    """Whether ``host`` means every address of this machine."""
    return host in ("", "0.0.0.0", "::")
