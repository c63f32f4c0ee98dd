"""Who is asking: the client's address, behind as many proxies as the deployment trusts, and
its browser and system, told apart coarsely from the User-Agent.

Sign-in throttling (django-axes and portal.signin) and the share-link limiter both count per
client, so both ask here: one rule for which X-Forwarded-For entry is believed, and one for what
counts as one client (`client_network`: an IPv6 client is its /64).
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext_noop


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT proxies the address the outermost trusted proxy
    saw: that many entries from the right of X-Forwarded-For.

    Each proxy appends the address it saw, so entries further left are whatever the client sent
    and prove nothing; a header shorter than the proxy chain, or not an address, falls back to
    REMOTE_ADDR.
    """
    remote = request.META.get("REMOTE_ADDR", "")
    proxies = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    if proxies <= 0:
        return remote
    chain = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    chain = [h for h in chain if h]
    if len(chain) < proxies:  # a request that did not come through every proxy
        return remote
    try:
        return str(ipaddress.ip_address(chain[-proxies]))
    except ValueError:
        return remote


# One IPv6 subscriber is routinely given a whole /64 and may use any address in it: counted per
# address, each guess could come from a fresh one.
IPV6_CLIENT_PREFIX = 64


def address_bucket(address: str) -> str:
    """What a rate limit counts as one client: an IPv4 address itself, an IPv6 address as its
    /64 written as the network's first address ("2001:db8:1:2::", still a valid address for
    django-axes' address column), an IPv4-mapped IPv6 address as the IPv4 one. Anything that is
    not an address is returned as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        network = ipaddress.IPv6Network((ip.packed, IPV6_CLIENT_PREFIX), strict=False)
        return str(network.network_address)
    return str(ip)


def client_network(request: HttpRequest) -> str:
    """client_address() bucketed as address_bucket() says: the key of every per-client limit."""
    return address_bucket(client_address(request))


UNKNOWN_CLIENT = gettext_noop("Other")


def client_from_user_agent(user_agent: str) -> tuple[str, str, bool]:
    """(browser, system, mobile): coarse on purpose, enough to tell a phone from a desk."""
    ua = user_agent[:512]
    browsers = (
        ("MicroMessenger", "WeChat"),
        ("Edg", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("FxiOS", "Firefox"),
        ("CriOS", "Chrome"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    )
    systems = (
        ("Windows", "Windows"),
        ("Android", "Android"),
        ("iPhone", "iOS"),
        ("iPad", "iOS"),
        ("Mac OS X", "macOS"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    )
    browser = next((name for marker, name in browsers if marker in ua), UNKNOWN_CLIENT)
    system = next((name for marker, name in systems if marker in ua), UNKNOWN_CLIENT)
    mobile = "Mobi" in ua or system in ("Android", "iOS")
    return browser, system, mobile
