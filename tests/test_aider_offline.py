"""Aider, run as tests/aider_cli.py runs it, connects to nothing but the base URL.

Measured with strace: every `connect` of Aider and of whatever it starts (git) is listed, and
each IP connection must go to the capture server. Without the offline switches of
tests/aider_cli.py, aider-chat 0.86.2 connects to pypi.org (update check), resolves
raw.githubusercontent.com (litellm's model list) and opens its release notes in a browser.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from aider_cli import aider_or_skip
from record_aider import capture_run

# `connect(5, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("1.2.3.4")}, 16)`,
# or AF_INET6 with `sin6_port` and `inet_pton(AF_INET6, "::1", &sin6_addr)`.
IP_CONNECT = re.compile(r"connect\(\d+, \{sa_family=AF_INET6?, (?P<rest>[^}]*)\}")
PORT = re.compile(r"sin6?_port=htons\((\d+)\)")
ADDRESS = re.compile(r'(?:inet_addr\("|inet_pton\(AF_INET6, ")([^"]+)"')


def strace_or_skip() -> str:
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed")
    probe = subprocess.run([strace, "-o", "/dev/null", "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"strace cannot trace here: {probe.stderr.decode(errors='replace')}")
    return strace


def ip_connections(log: str) -> list[tuple[str, int]]:
    """(address, port) of every IPv4/IPv6 `connect` in an strace log."""
    found = []
    for match in IP_CONNECT.finditer(log):
        rest = match.group("rest")
        port, address = PORT.search(rest), ADDRESS.search(rest)
        assert port and address, match.group(0)
        found.append((address.group(1), int(port.group(1))))
    return found


def test_the_strace_log_parser_sees_both_families() -> None:
    log = (
        '12 connect(3, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.1")}'
        ", 16) = 0\n"
        "12 connect(4, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), "
        'inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0\n'
        '12 connect(5, {sa_family=AF_UNIX, sun_path="/run/x"}, 110) = -1 ENOENT\n'
    )
    assert ip_connections(log) == [("10.0.0.1", 53), ("::1", 443)]


def test_aider_connects_only_to_the_base_url(tmp_path: Path) -> None:
    aider = aider_or_skip()
    strace = strace_or_skip()
    log = tmp_path / "strace.log"
    wrapper = (strace, "-f", "-e", "trace=connect", "-o", str(log))
    captured = capture_run(aider, tmp_path, wrapper=wrapper)
    assert captured.run.returncode == 0, captured.run.report
    assert len(captured.requests) == 2, captured.run.report
    base = urlsplit(captured.base_url)
    connections = ip_connections(log.read_text(encoding="utf-8", errors="replace"))
    assert connections, "strace saw no connection at all: the trace did not work"
    assert set(connections) == {(base.hostname, base.port)}
