"""The network allow list: what a sandbox may connect to, decided without touching the network.

An entry is a host name (``example.com``), a leading wildcard (``*.example.com``: subdomains
at any depth, never the bare name), an IP address or a CIDR block.  Every address — in an
entry or in a request — is normalised first (IPv4-mapped IPv6, ``0x7f.1``, ``2130706433``,
``127.1``, octal ``0177.0.0.1``), so one destination cannot hide behind another spelling.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

from vshell.records import record

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_LABEL_RE = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\Z")
_IPV4_PART_RE = re.compile(r"(?:0[xX][0-9a-fA-F]*|[0-9]+)\Z")

# Addresses block_private (the default) refuses unless an IP/CIDR entry names them: private,
# loopback, link-local, unique-local, multicast, unspecified, reserved, shared (CGNAT) and the
# cloud metadata endpoints.
_BLOCKED_NETS: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
        "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15",
        "224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
        "::/128", "::1/128", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
        "fd00:ec2::254/128",
    )
)
METADATA_ADDRESSES = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)


def parse_ipv4(text: str) -> ipaddress.IPv4Address | None:
    """inet_aton's reading of ``text`` (1-4 parts; decimal, ``0x`` hex, ``0`` octal) or None.

    Resolvers accept these spellings, so the policy must read them the same way.
    """
    parts = text.split(".")
    if not 1 <= len(parts) <= 4 or not all(_IPV4_PART_RE.match(p) for p in parts):
        return None
    values: list[int] = []
    for p in parts:
        if p[:2] in ("0x", "0X"):
            values.append(int(p[2:] or "0", 16))
        elif len(p) > 1 and p.startswith("0"):
            if not all(c in "01234567" for c in p):
                return None
            values.append(int(p, 8))
        else:
            values.append(int(p))
    *head, last = values
    if any(v > 255 for v in head) or last >= 1 << (8 * (4 - len(head))):
        return None
    number = 0
    for v in head:
        number = number << 8 | v
    number = number << (8 * (4 - len(head))) | last
    return ipaddress.IPv4Address(number)


def normalize_ip(addr: IPAddress) -> IPAddress:
    """An IPv4-mapped IPv6 address is the IPv4 address it carries."""
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return addr.ipv4_mapped
        if addr.scope_id:
            return ipaddress.IPv6Address(str(addr).split("%", 1)[0])
    return addr


def parse_ip(text: str) -> IPAddress | None:
    """``text`` as an IP address in any spelling a resolver accepts, normalised; else None."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if ":" in text:
        try:
            return normalize_ip(ipaddress.IPv6Address(text))
        except ValueError:
            return None
    return parse_ipv4(text.rstrip(".")) if text else None


def _looks_numeric(host: str) -> bool:
    """WHATWG URL rule: a host whose last label is a number is meant as an IPv4 address."""
    last = host.rstrip(".").rsplit(".", 1)[-1]
    return bool(last) and bool(_IPV4_PART_RE.match(last))


def normalize_host(host: str) -> str:
    """Lower-case ASCII (IDNA) form without a trailing dot; ValueError when not a host name."""
    name = host.strip().rstrip(".").lower()
    if not name:
        raise ValueError("empty host name")
    if not name.isascii():
        try:
            name = name.encode("idna").decode("ascii")
        except UnicodeError:
            raise ValueError(f"invalid host name {host!r}") from None
    if len(name) > 253:
        raise ValueError(f"host name too long: {host!r}")
    for label in name.split("."):
        if not _LABEL_RE.match(label):
            raise ValueError(f"invalid host name {host!r}")
    return name


def is_blocked(addr: IPAddress) -> bool:
    """True for the addresses ``block_private`` refuses (embedded IPv4 included)."""
    addr = normalize_ip(addr)
    candidates: list[IPAddress] = [addr]
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.sixtofour is not None:
            candidates.append(addr.sixtofour)
        if addr in ipaddress.IPv6Network("64:ff9b::/96"):
            candidates.append(ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF))
        if int(addr) >> 32 == 0 and int(addr) > 1:  # deprecated IPv4-compatible ::a.b.c.d
            candidates.append(ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF))
    for a in candidates:
        if a in METADATA_ADDRESSES:
            return True
        if any(a.version == n.version and a in n for n in _BLOCKED_NETS):
            return True
    return False


@record(frozen=True)
class Entry:
    """One parsed entry; ``kind`` is ``host``, ``wildcard`` or ``network``."""

    text: str
    kind: str
    name: str = ""
    network: IPNetwork | None = None
    # A network entry wholly inside a blocked range names a private destination on purpose,
    # so block_private does not override it (a catch-all like 0.0.0.0/0 does not count).
    # The host entry ``localhost`` names the loopback addresses the same way.
    names_private: bool = False


def parse_entry(text: str) -> Entry:
    """Parse one allow-list entry; ValueError with a message a user can act on."""
    if not isinstance(text, str):
        raise ValueError(f"invalid allow-list entry {text!r}: not a string")
    raw = text
    text = text.strip()
    if not text:
        raise ValueError("invalid allow-list entry '': empty")
    if "://" in text or text.startswith("//"):
        raise ValueError(
            f"invalid allow-list entry {raw!r}: a URL is not an entry; give the host name only"
        )
    if any(c.isspace() for c in text):
        raise ValueError(f"invalid allow-list entry {raw!r}: contains white space")
    if "/" in text:
        addr_text, _, prefix = text.partition("/")
        addr = parse_ip(addr_text)
        if addr is None or not prefix.isdigit():
            raise ValueError(
                f"invalid allow-list entry {raw!r}: expected a CIDR block like 10.0.0.0/8;"
                " paths and URLs are not entries"
            )
        try:
            net = ipaddress.ip_network(f"{addr}/{int(prefix)}", strict=False)
        except ValueError as e:
            raise ValueError(f"invalid allow-list entry {raw!r}: {e}") from None
        return _network_entry(raw, net)
    addr = parse_ip(text)
    if addr is not None:
        return _network_entry(raw, ipaddress.ip_network(addr))
    if text.startswith("[") or text.count(":") > 1:
        raise ValueError(f"invalid allow-list entry {raw!r}: not a valid IPv6 address")
    if ":" in text:
        raise ValueError(
            f"invalid allow-list entry {raw!r}: ports are not supported; give the host only"
        )
    if "@" in text or "?" in text or "#" in text:
        raise ValueError(f"invalid allow-list entry {raw!r}: not a host name, IP or CIDR")
    wildcard = text.startswith("*.")
    name = text[2:] if wildcard else text
    if "*" in name:
        raise ValueError(
            f"invalid allow-list entry {raw!r}: a wildcard is only allowed as a leading '*.'"
            " (as in *.example.com)"
        )
    if _looks_numeric(name):
        raise ValueError(f"invalid allow-list entry {raw!r}: not a valid IP address")
    try:
        name = normalize_host(name)
    except ValueError as e:
        raise ValueError(f"invalid allow-list entry {raw!r}: {e}") from None
    return Entry(raw, "wildcard" if wildcard else "host", name=name,
                 names_private=not wildcard and name == "localhost")


def _network_entry(raw: str, net: IPNetwork) -> Entry:
    names_private = net.prefixlen > 0 and any(
        net.version == b.version and net.subnet_of(b)  # type: ignore[arg-type]  # the versions were just compared equal
        for b in _BLOCKED_NETS
    )
    return Entry(raw, "network", network=net, names_private=names_private)


class AllowList:
    """The parsed allow list and the two checks sbsh defines: by name and by address.

    ``block_private`` (on by default) keeps private, loopback, link-local and metadata
    addresses out of reach unless an IP/CIDR entry inside such a range, or the entry
    ``localhost`` for loopback, names them: a name entry must not become a way in.
    """

    def __init__(self, entries: Iterable[str], *, block_private: bool = True) -> None:
        if isinstance(entries, str):
            entries = [entries]
        self.entries: list[Entry] = [parse_entry(e) for e in entries]
        self.block_private = block_private
        self._hosts = {e.name for e in self.entries if e.kind == "host"}
        self._wildcards = [e.name for e in self.entries if e.kind == "wildcard"]
        self._networks = [e for e in self.entries if e.kind == "network"]

    def __bool__(self) -> bool:
        return bool(self.entries)

    def allows_name(self, host: str) -> bool:
        """Does a host or wildcard entry cover ``host``?  (An IP literal never matches a name.)"""
        if parse_ip(host) is not None:
            return False
        try:
            name = normalize_host(host)
        except ValueError:
            return False
        if name in self._hosts:
            return True
        return any(name.endswith("." + w) for w in self._wildcards)

    def allows_address(self, ip: str | IPAddress) -> bool:
        """Does an IP or CIDR entry cover ``ip`` (with ``block_private`` applied)?"""
        addr = parse_ip(ip) if isinstance(ip, str) else normalize_ip(ip)
        if addr is None:
            return False
        blocked = self.block_private and is_blocked(addr)
        for e in self._networks:
            net = e.network
            if net is not None and net.version == addr.version and addr in net:
                if not blocked or e.names_private:
                    return True
        return False

    def address_blocked(self, ip: str | IPAddress) -> bool:
        """True when ``block_private`` refuses ``ip`` even though a name entry allowed it."""
        addr = parse_ip(ip) if isinstance(ip, str) else normalize_ip(ip)
        return addr is not None and self.block_private and is_blocked(addr)

    def refused_as_private(self, ip: str | IPAddress) -> bool:
        """True when only ``block_private`` keeps ``ip`` out: a broad entry covers it."""
        addr = parse_ip(ip) if isinstance(ip, str) else normalize_ip(ip)
        if addr is None or not self.address_blocked(addr):
            return False
        return any(e.network is not None and e.network.version == addr.version
                   and addr in e.network for e in self._networks)

    def allows_resolved(self, host: str, ip: str | IPAddress) -> bool:
        """May ``ip``, an address the allowed name ``host`` resolved to, be dialled?

        A public address: yes.  A blocked one: only when an IP/CIDR entry names it, or when
        the name is ``localhost``, listed literally, and the address is loopback.
        """
        addr = parse_ip(ip) if isinstance(ip, str) else normalize_ip(ip)
        if addr is None:
            return False
        if not self.address_blocked(addr) or self.allows_address(addr):
            return True
        try:
            name = normalize_host(host)
        except ValueError:
            return False
        return name == "localhost" and "localhost" in self._hosts and addr.is_loopback


def validate_allow_list(entries: Iterable[str]) -> None:
    """Raise ValueError on the first bad entry (for start-up validation)."""
    if isinstance(entries, str):
        raise ValueError("the allow list must be a list of entries, not one string")
    for e in entries:
        parse_entry(e)
