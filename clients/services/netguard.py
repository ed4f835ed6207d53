"""Where webhooks may go: http(s) URLs whose host resolves to public addresses only.

A webhook URL is chosen by a user and fetched by our server, the classic server-side request
forgery: without this check a user could make the server POST to 127.0.0.1, the cloud
metadata service (169.254.169.254) or the private network. The host is resolved when the hook
is registered and again at every delivery, and the delivery connects to an address that was
checked (no second lookup a DNS rebinding could change). `CANASTA_WEBHOOKS_ALLOW_PRIVATE`
lifts the address check (development, tests with a local receiver); the scheme check stays.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from django.conf import settings

SCHEMES = {"http": 80, "https": 443}

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class UnsafeUrl(Exception):
    """The URL is not one we deliver to; the message says why (shown to the user)."""


@dataclass(frozen=True)
class Target:
    """A checked URL: connect to `address`, speak to `host` (Host header, TLS name)."""

    url: str
    scheme: str
    host: str
    port: int
    path: str
    address: str


def _embedded_ipv4(ip: Address) -> Address:
    if isinstance(ip, ipaddress.IPv6Address):
        # ::ffff:127.0.0.1 and 2002:7f00:1::/48 (6to4) reach IPv4 hosts: judge those.
        return ip.ipv4_mapped or ip.sixtofour or ip
    return ip


def address_refusal(address: str) -> str | None:
    """Why we do not deliver to this IP address, or None if it is a public one."""
    try:
        ip: Address = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return f"{address!r} is not an IP address"
    ip = _embedded_ipv4(ip)
    flags = (
        "loopback",
        "private",
        "link_local",
        "site_local",
        "multicast",
        "reserved",
        "unspecified",
    )
    for flag in flags:
        # is_site_local: IPv6's deprecated fec0::/10, which is_global does not refuse.
        if getattr(ip, f"is_{flag}", False):
            return f"{ip} is a {flag.replace('_', '-')} address"
    if not ip.is_global:
        # Shared address space (100.64.0.0/10), documentation ranges and the like.
        return f"{ip} is not a public address"
    return None


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _split(url: str) -> SplitResult:
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 -- raises ValueError on a bad port
    except ValueError as error:
        raise UnsafeUrl(f"Not a valid URL: {error}.") from None
    if parts.scheme not in SCHEMES:
        raise UnsafeUrl("Only http:// and https:// URLs are allowed.")
    if not parts.hostname:
        raise UnsafeUrl("The URL has no host.")
    if parts.username or parts.password:
        # Credentials in a URL end up in logs; use the signature to authenticate us instead.
        raise UnsafeUrl("The URL must not contain a user name or password.")
    return parts


def _resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise UnsafeUrl(f"The host {host!r} does not resolve: {error}.") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise UnsafeUrl(f"The host {host!r} does not resolve.")
    return addresses


def check_url(url: str, *, allow_private: bool | None = None) -> Target:
    """Check `url` and resolve its host; raises UnsafeUrl. Every address the name resolves to
    must be public (one private answer is enough for a rebinding attack to pick it)."""
    if allow_private is None:
        allow_private = settings.CANASTA_WEBHOOKS_ALLOW_PRIVATE
    parts = _split(url)
    host = parts.hostname or ""
    port = parts.port or SCHEMES[parts.scheme]
    addresses = _resolve(host, port)
    if not allow_private:
        for address in addresses:
            refusal = address_refusal(address)
            if refusal:
                # A name's answer is not told: the refusal must not be a resolver for the
                # service's own network ("vm resolves to 127.0.0.1").
                why = refusal if _is_address(host) else f"{host} is not a public host"
                raise UnsafeUrl(
                    f"Webhooks may not go to private, loopback or other internal addresses ({why})."
                )
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(
        url=url, scheme=parts.scheme, host=host, port=port, path=path, address=addresses[0]
    )
