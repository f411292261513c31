"""Which address phones on the same network should open (for the join QR code)."""

from __future__ import annotations

import ipaddress
import socket


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, from its host name (no traffic is sent)."""
    found = []
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return found
    for info in infos:
        address = info[4][0]
        if not ipaddress.ip_address(address).is_loopback and address not in found:
            found.append(address)
    return found


def join_url(request_host: str, port: int | None = None) -> str:
    """The URL a phone should open: the address the page was reached on, unless that is loopback
    (the TV on the Pi itself), in which case this machine's LAN address."""
    host, _, given_port = request_host.partition(":")
    port_text = given_port or (str(port) if port else "")
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        addresses = lan_addresses()
        if addresses:
            host = addresses[0]
    return f"http://{host}{':' + port_text if port_text else ''}/"
