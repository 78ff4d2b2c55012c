"""The allow list: entry parsing, address normalisation, matching and block_private."""

from __future__ import annotations

import ipaddress

import pytest

from vshell.net import AllowList, parse_entry, parse_ip, validate_allow_list
from vshell.net.policy import is_blocked


@pytest.mark.parametrize(
    "text,kind,value",
    [
        ("example.com", "host", "example.com"),
        ("Example.COM.", "host", "example.com"),
        ("*.example.com", "wildcard", "example.com"),
        ("bücher.de", "host", "xn--bcher-kva.de"),
        ("192.168.1.1", "network", "192.168.1.1/32"),
        ("10.0.1.0/24", "network", "10.0.1.0/24"),
        ("10.0.1.7/24", "network", "10.0.1.0/24"),
        ("::1", "network", "::1/128"),
        ("[::1]", "network", "::1/128"),
        ("2001:db8::/32", "network", "2001:db8::/32"),
        ("::ffff:127.0.0.1", "network", "127.0.0.1/32"),
        ("0x7f.1", "network", "127.0.0.1/32"),
        ("2130706433", "network", "127.0.0.1/32"),
        ("127.1", "network", "127.0.0.1/32"),
        ("0177.0.0.1", "network", "127.0.0.1/32"),
    ],
)
def test_entries_parse(text: str, kind: str, value: str) -> None:
    e = parse_entry(text)
    assert e.kind == kind
    assert (e.name if kind != "network" else str(e.network)) == value


@pytest.mark.parametrize(
    "text,needle",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("http://example.com", "URL"),
        ("https://example.com/x", "URL"),
        ("example.com:443", "ports"),
        ("example.com/path", "CIDR"),
        ("a.*.com", "wildcard"),
        ("*", "wildcard"),
        ("*example.com", "wildcard"),
        ("**.example.com", "wildcard"),
        ("*.*.example.com", "wildcard"),
        ("1.2.3.4.5", "IP"),
        ("256.1.1.1", "IP"),
        ("10.0.0.0/33", "10.0.0.0/33"),
        ("::1/200", "::1/200"),
        ("fe80::1::2", "IPv6"),
        ("a..b", "invalid host"),
        ("-bad.com", "invalid host"),
        ("user@example.com", "host name"),
        ("exa mple.com", "white space"),
    ],
)
def test_bad_entries_rejected(text: str, needle: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_entry(text)
    assert needle in str(info.value)
    assert "allow-list entry" in str(info.value)


def test_validate_allow_list() -> None:
    validate_allow_list(["example.com", "*.github.com", "10.0.0.0/8", "::1"])
    with pytest.raises(ValueError, match="URL"):
        validate_allow_list(["ok.com", "http://x"])
    with pytest.raises(ValueError, match="list"):
        validate_allow_list("example.com")


@pytest.mark.parametrize(
    "text,expect",
    [
        ("127.0.0.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("017700000001", "127.0.0.1"),
        ("::ffff:127.0.0.1", "127.0.0.1"),
        ("::ffff:7f00:1", "127.0.0.1"),
        ("[::1]", "::1"),
        ("0:0:0:0:0:0:0:1", "::1"),
        ("fe80::1%eth0", "fe80::1"),
        ("example.com", None),
        ("09.1.1.1", None),
        ("1.256.1.1", None),
        ("4294967296", None),
    ],
)
def test_parse_ip_spellings(text: str, expect: str | None) -> None:
    got = parse_ip(text)
    assert (str(got) if got is not None else None) == expect


def test_names_and_wildcards() -> None:
    al = AllowList(["example.com", "*.github.com"])
    assert al.allows_name("example.com")
    assert al.allows_name("EXAMPLE.com.")
    assert not al.allows_name("www.example.com")
    assert not al.allows_name("github.com")
    assert al.allows_name("api.github.com")
    assert al.allows_name("a.b.c.github.com")
    assert not al.allows_name("evilgithub.com")
    assert not al.allows_name("github.com.evil.net")
    assert not al.allows_name("127.0.0.1")
    assert not al.allows_address("127.0.0.1")


def test_addresses_and_cidr() -> None:
    al = AllowList(["10.0.1.0/24", "127.0.0.1", "2001:db8::/32"])
    assert al.allows_address("10.0.1.200")
    assert not al.allows_address("10.0.2.1")
    assert al.allows_address("0x7f.1")
    assert al.allows_address("2130706433")
    assert al.allows_address("::ffff:10.0.1.5")
    assert al.allows_address(ipaddress.ip_address("2001:db8::5"))
    assert not al.allows_address("2001:db9::5")
    assert not al.allows_address("not-an-ip")
    assert not al.allows_name("10.0.1.2")


@pytest.mark.parametrize(
    "addr",
    ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.0.1", "169.254.169.254", "169.254.1.1",
     "0.0.0.0", "224.0.0.1", "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1",
     "::ffff:127.0.0.1", "2002:7f00:1::", "64:ff9b::a9fe:a9fe", "100.64.0.1"],
)
def test_blocked_addresses(addr: str) -> None:
    ip = parse_ip(addr)
    assert ip is not None and is_blocked(ip)


@pytest.mark.parametrize("addr", ["93.184.216.34", "8.8.8.8", "2606:4700::1111"])
def test_public_addresses_not_blocked(addr: str) -> None:
    ip = parse_ip(addr)
    assert ip is not None and not is_blocked(ip)


def test_block_private_keeps_explicit_private_entries() -> None:
    al = AllowList(["127.0.0.1", "0.0.0.0/0", "example.com"], block_private=True)
    assert al.allows_address("127.0.0.1")  # named on purpose
    assert not al.allows_address("10.0.0.1")  # only the catch-all covers it
    assert al.allows_address("8.8.8.8")
    assert al.address_blocked("169.254.169.254")
    assert not AllowList(["example.com"], block_private=False).address_blocked("127.0.0.1")
    assert AllowList(["example.com"]).address_blocked("127.0.0.1")  # the default is safe
