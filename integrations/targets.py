"""Where a webhook may go: https, public addresses only, and exactly the address that was checked.

A webhook URL is chosen by a user, so the worker must not become a way into the internal network
(issue 13, finding 2). The host is resolved once per attempt; every address it resolves to must
be public; the POST then connects to that checked address (no second lookup that DNS could
answer differently) while the Host header and the TLS certificate check use the hostname. The
same check runs when an endpoint is registered and again before every delivery.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Not covered by ipaddress' is_private / is_global in every Python we run on.
_SPECIAL_V4 = (
    ipaddress.ip_network("100.64.0.0/10"),  # shared address space (carrier-grade NAT)
    ipaddress.ip_network("192.0.0.0/24"),  # IETF protocol assignments
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # the IPv4 address is in the last 32 bits
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


class WebhookTargetRefused(Exception):
    """The URL may not receive webhooks. `retry` is true when asking again later may succeed
    (the name did not resolve), false when the target itself is refused."""

    def __init__(self, message: str, *, retry: bool = False):
        super().__init__(message)
        self.message, self.retry = message, retry


@dataclass(frozen=True)
class WebhookTarget:
    scheme: str
    host: str  # as written in the URL: the Host header and the TLS server name
    port: int
    path: str  # path and query
    addresses: tuple[str, ...]  # every resolved address, each one checked


def address_is_public(ip: IPAddress) -> bool:
    """True for an address on the public Internet; false for anything internal or special."""
    if isinstance(ip, ipaddress.IPv6Address):
        # IPv6 forms that carry an IPv4 address are judged by that address.
        if ip.ipv4_mapped is not None:
            return address_is_public(ip.ipv4_mapped)
        if ip.sixtofour is not None:
            return address_is_public(ip.sixtofour)
        if ip in _NAT64:
            return address_is_public(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        if ip.teredo is not None or ip in _NAT64_LOCAL or ip.is_site_local:
            return False
    elif any(ip in net for net in _SPECIAL_V4):
        return False
    return ip.is_global and not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    )


def _address_allowed(ip: IPAddress) -> bool:
    if address_is_public(ip):
        return True
    # Tests (and only tests) deliver to a receiver on the loopback interface.
    return settings.WEBHOOKS_ALLOW_LOOPBACK and any(
        ip in net for net in _LOOPBACK if net.version == ip.version
    )


def _resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    # A link-local IPv6 answer may carry a zone ("fe80::1%eth0"): judge the address part.
    return list(dict.fromkeys(info[4][0].split("%", 1)[0] for info in infos))


def webhook_target_check(url: str) -> WebhookTarget:
    """The checked target of `url`, or WebhookTargetRefused with a message for the user."""
    parts = urlsplit(url)
    schemes = ("https", "http") if settings.WEBHOOKS_ALLOW_HTTP else ("https",)
    if parts.scheme not in schemes:
        raise WebhookTargetRefused(_("Webhook URLs must start with https://."))
    if parts.username is not None or parts.password is not None:
        raise WebhookTargetRefused(_("Webhook URLs may not contain a user name or password."))
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host:
        raise WebhookTargetRefused(_("This URL has no valid host name."))
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = _resolve(host, port)
    except (OSError, UnicodeError):
        raise WebhookTargetRefused(
            _("The host name %(host)s could not be resolved.") % {"host": host},
            retry=True,
        ) from None
    for address in addresses:
        if not _address_allowed(ipaddress.ip_address(address)):
            raise WebhookTargetRefused(
                _(
                    "%(host)s resolves to %(address)s, an internal or reserved address; webhooks "
                    "are only sent to public addresses."
                )
                % {"host": host, "address": address}
            )
    if not addresses:
        raise WebhookTargetRefused(
            _("The host name %(host)s could not be resolved.") % {"host": host},
            retry=True,
        )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return WebhookTarget(parts.scheme, host, port, path, tuple(addresses))


def webhook_post(
    target: WebhookTarget,
    *,
    body: bytes,
    headers: dict[str, str],
    timeout: float,
    excerpt_bytes: int,
) -> tuple[int, bytes]:
    """POST to the checked address of `target`; (status, first bytes of the answer).

    Redirects are not followed (http.client never does). Raises OSError / HTTPException on
    network trouble, timeouts included: `timeout` bounds the connect and every read.
    """
    address = target.addresses[0]
    if target.scheme == "https":
        connection = http.client.HTTPSConnection(
            target.host, target.port, timeout=timeout, context=ssl.create_default_context()
        )
    else:
        connection = http.client.HTTPConnection(target.host, target.port, timeout=timeout)
    # Connect to the address that was checked; http.client still sends `Host: target.host`
    # and, for https, verifies the certificate against target.host (SNI included).
    # http.client opens its socket through this attribute (HTTPSConnection wraps it afterwards).
    connection._create_connection = (  # noqa: SLF001
        lambda _address, timeout_, source=None: socket.create_connection(
            (address, target.port), timeout_, source
        )
    )
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read(excerpt_bytes)
    finally:
        connection.close()
