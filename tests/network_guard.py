"""The test suite talks to nothing but this machine: loopback addresses and unix sockets.

Installed for the whole session by tests/conftest.py. A connection to any other address, or a
DNS lookup of a name that is not local, is stopped before it leaves the process (the caller sees
a refused connection or an unknown name) and recorded; the `loopback_only` fixture then fails
the test that did it. PostgreSQL and Redis on 127.0.0.1, live servers, Chromium (its own
process) and unix sockets are unaffected.

Tests that need a name to resolve use `fake_dns` (tests/conftest.py): the answers come from a
table, never from a DNS server; the name "*" answers for every name not in the table.
"""

from __future__ import annotations

import ipaddress
import socket

# The real functions, looked up at call time so that a test of this guard can swap them for
# ones that cannot send anything.
real = {
    "connect": socket.socket.connect,
    "connect_ex": socket.socket.connect_ex,
    "getaddrinfo": socket.getaddrinfo,
}
violations: list[str] = []
fake_names: dict[str, list[str]] = {}
LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


class LoopbackOnly(ConnectionRefusedError):
    """What code under test sees when it reaches beyond the loopback interface."""


def is_loopback(host: str) -> bool:
    try:
        ip = ipaddress.ip_address(str(host).split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _check(sock: socket.socket, address) -> None:
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return  # unix sockets and the like stay on this machine
    if not is_loopback(address[0]):
        message = f"the test suite tried to connect to {address[0]!r} port {address[1]}"
        violations.append(message)
        raise LoopbackOnly(message)


def _connect(sock, address):
    _check(sock, address)
    return real["connect"](sock, address)


def _connect_ex(sock, address):
    _check(sock, address)
    return real["connect_ex"](sock, address)


def _fake_answer(name: str, port, type_: int) -> list[tuple]:
    if not fake_names[name]:
        raise socket.gaierror(socket.EAI_NONAME, f"{name}: no such name (fake_dns)")
    answers = []
    for address in fake_names[name]:
        ip = ipaddress.ip_address(address)
        family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
        sockaddr = (address, int(port or 0), 0, 0) if ip.version == 6 else (address, int(port or 0))
        answers.append((family, type_ or socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr))
    return answers


def _getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):  # noqa: A002  (socket's names)
    name = host.decode() if isinstance(host, bytes) else host
    if name is None:
        return real["getaddrinfo"](host, port, family, type, proto, flags)
    if name.lower().rstrip(".") in fake_names:
        return _fake_answer(name.lower().rstrip("."), port, type)
    try:  # an address written as numbers is parsed locally; no lookup is sent
        return real["getaddrinfo"](host, port, family, type, proto, flags | socket.AI_NUMERICHOST)
    except socket.gaierror:
        pass
    if name.lower().rstrip(".") in LOCAL_NAMES:  # answered from /etc/hosts
        return real["getaddrinfo"](host, port, family, type, proto, flags)
    if "*" in fake_names:  # fake_dns({"*": [...]}): every other name
        return _fake_answer("*", port, type)
    violations.append(f"the test suite tried to resolve {name!r} through DNS (use fake_dns)")
    raise socket.gaierror(socket.EAI_NONAME, f"{name}: DNS lookups are blocked in tests")


def install() -> None:
    socket.socket.connect = _connect
    socket.socket.connect_ex = _connect_ex
    socket.getaddrinfo = _getaddrinfo


def take_violations() -> list[str]:
    found = list(violations)
    violations.clear()
    return found
