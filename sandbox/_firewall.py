"""Host firewall for sweep networks: a sandbox reaches nothing but what the harness allows.

Docker's `internal` networks have no route out, but the bridge still carries the
host's own addresses (the gateway, and through it every other local address), and
traffic *to the host* goes through the INPUT chain, which Docker leaves open: a server
on the host's 0.0.0.0 is reachable from every sandbox. So each sweep network gets one
chain, `PWB-<network id[:12]>`, with

    -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT   replies to the harness
    [-d <gateway> -p tcp --dport <port> -j ACCEPT]          the one allowed service
    -j REJECT                                               everything else

jumped to for packets coming *in from the bridge* (`-i br-…`) from INPUT (to the host)
and from DOCKER-USER (forwarded: other networks, other cells on the same bridge, the
outside; FORWARD when Docker has no DOCKER-USER). The harness opens connections to the
sandbox (OUTPUT, not filtered here); their replies are ESTABLISHED. Both IPv4 and,
when the host has it, IPv6 are filtered. The chain is installed when the network is
created (idempotently: a retry or second process re-fills it) and removed with the
network, and by `gc` for chains whose network is gone.

Rules are installed with whichever iptables Docker itself uses (the one holding
DOCKER-USER: `iptables` via alternatives, nft here, or `iptables-legacy`). Without the
rights to install them (not root / no CAP_NET_ADMIN, no iptables), Docker cells are
refused with `FirewallUnavailable` unless the sweep sets `docker_firewall = false`, in
which case sandboxes report `isolated = False`.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
from dataclasses import dataclass

import anyio

from ._types import BackendUnavailable

PREFIX = "PWB-"
_SBIN = "/usr/local/sbin:/usr/sbin:/sbin"
_TIMEOUT_S = 20.0


class FirewallUnavailable(BackendUnavailable):
    """The host firewall rules could not be installed: Docker cells would reach the host."""


@dataclass(frozen=True, slots=True)
class Allow:
    """The one service a sweep network may reach (the scaffold arm's LLM gateway)."""

    address: str
    port: int


@dataclass(frozen=True, slots=True)
class _Family:
    cmd: str  # iptables, ip6tables, iptables-legacy, ...
    restore: str
    v6: bool


@dataclass(frozen=True, slots=True)
class _Tools:
    v4: _Family
    v6: _Family | None  # None: the host has no IPv6 (or no ip6tables) to filter

    @property
    def families(self) -> tuple[_Family, ...]:
        return (self.v4,) if self.v6 is None else (self.v4, self.v6)


def chain_name(network_id: str) -> str:
    return PREFIX + network_id[:12]


def bridge_name(network_id: str, options: dict[str, str] | None = None) -> str:
    """The bridge Docker made for a network (its default name unless configured)."""
    return (options or {}).get("com.docker.network.bridge.name") or "br-" + network_id[:12]


def _which(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path=_SBIN)


async def _run(argv: list[str], stdin: bytes | None = None) -> tuple[int, str]:
    with anyio.fail_after(_TIMEOUT_S):
        proc = await anyio.run_process(argv, input=stdin, check=False)
    out = (proc.stdout + proc.stderr).decode(errors="replace").strip()
    return proc.returncode, out


def _family(cmd: str, restore: str, v6: bool) -> _Family | None:
    found, found_restore = _which(cmd), _which(restore)
    return _Family(found, found_restore, v6) if found and found_restore else None


# (v4, v4-restore, v6, v6-restore): the alternatives' default first, then legacy.
_FLAVOURS = (
    ("iptables", "iptables-restore", "ip6tables", "ip6tables-restore"),
    ("iptables-legacy", "iptables-legacy-restore", "ip6tables-legacy", "ip6tables-legacy-restore"),
)


async def _tools() -> _Tools:
    """The iptables Docker uses (the one holding DOCKER-USER), else FirewallUnavailable."""
    if os.geteuid() != 0:
        raise FirewallUnavailable("host firewall: needs root (CAP_NET_ADMIN) to install rules")
    pairs = []
    for v4, r4, v6, r6 in _FLAVOURS:
        fam = _family(v4, r4, False)
        if fam is not None:
            pairs.append((fam, _family(v6, r6, True)))
    if not pairs:
        raise FirewallUnavailable("host firewall: no iptables/iptables-restore on this host")
    for fam4, fam6 in pairs:
        if (await _run([fam4.cmd, "-w", "-S", "DOCKER-USER"]))[0] == 0:
            return _Tools(v4=fam4, v6=await _usable_v6(fam6))
    # No DOCKER-USER anywhere (Docker not managing iptables): hook FORWARD instead.
    fam4, fam6 = pairs[0]
    code, out = await _run([fam4.cmd, "-w", "-S", "INPUT"])
    if code != 0:
        raise FirewallUnavailable(f"host firewall: {fam4.cmd} does not work: {out}")
    return _Tools(v4=fam4, v6=await _usable_v6(fam6))


async def _usable_v6(fam: _Family | None) -> _Family | None:
    if fam is None or not os.path.exists("/proc/net/if_inet6"):
        return None
    return fam if (await _run([fam.cmd, "-w", "-S", "INPUT"]))[0] == 0 else None


async def preflight() -> None:
    """Raise FirewallUnavailable now, before any cell, when rules cannot be installed."""
    await _tools()


def _rules(chain: str, allow: Allow | None, v6: bool) -> str:
    reject = "icmp6-adm-prohibited" if v6 else "icmp-admin-prohibited"
    lines = [
        "*filter",
        f":{chain} - [0:0]",  # declared: created, or flushed when it exists (--noflush)
        f"-A {chain} -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
    ]
    if allow is not None and ipaddress.ip_address(allow.address).version == (6 if v6 else 4):
        lines.append(f"-A {chain} -d {allow.address} -p tcp --dport {allow.port} -j ACCEPT")
    lines += [f"-A {chain} -j REJECT --reject-with {reject}", "COMMIT", ""]
    return "\n".join(lines)


async def _hooks(fam: _Family) -> tuple[str, ...]:
    code, _ = await _run([fam.cmd, "-w", "-S", "DOCKER-USER"])
    return ("INPUT", "DOCKER-USER") if code == 0 else ("INPUT", "FORWARD")


async def _install_family(fam: _Family, chain: str, bridge: str, allow: Allow | None) -> None:
    rules = _rules(chain, allow, fam.v6).encode()
    code, out = await _run([fam.restore, "-w", "--noflush"], rules)
    if code != 0:
        raise FirewallUnavailable(f"host firewall: {fam.restore} failed for {chain}: {out}")
    for hook in await _hooks(fam):
        jump = ["-i", bridge, "-j", chain]
        if (await _run([fam.cmd, "-w", "-C", hook, *jump]))[0] == 0:
            continue
        code, out = await _run([fam.cmd, "-w", "-I", hook, "1", *jump])
        if code != 0:
            raise FirewallUnavailable(f"host firewall: hooking {chain} into {hook}: {out}")


async def install(network_id: str, bridge: str, allow: Allow | None = None) -> None:
    """Install (or refresh) the chain of one sweep network; FirewallUnavailable if not."""
    if allow is not None:
        try:
            ipaddress.ip_address(allow.address)
        except ValueError:
            raise FirewallUnavailable(
                f"host firewall: allow {allow.address!r} is not an IP"
            ) from None
    tools = await _tools()
    for fam in tools.families:
        await _install_family(fam, chain_name(network_id), bridge, allow)


async def _remove_family(fam: _Family, chain: str) -> bool:
    code, listing = await _run([fam.cmd, "-w", "-S"])
    if code != 0 or f"-N {chain}" not in listing.splitlines():
        return False
    for line in listing.splitlines():
        parts = line.split()
        if parts[:1] == ["-A"] and parts[-2:] == ["-j", chain]:
            await _run([fam.cmd, "-w", "-D", *parts[1:]])
    await _run([fam.cmd, "-w", "-F", chain])
    code, out = await _run([fam.cmd, "-w", "-X", chain])
    if code != 0:
        _, now = await _run([fam.cmd, "-w", "-S"])
        if f"-N {chain}" not in now.splitlines():
            return False  # removed meanwhile by another process (a concurrent gc)
        raise FirewallUnavailable(f"host firewall: could not remove {chain}: {out}")
    return True


async def remove(network_id: str) -> bool:
    """Remove a network's chain and the jumps to it; True when something was removed."""
    tools = await _tools()
    removed = False
    for fam in tools.families:
        removed = await _remove_family(fam, chain_name(network_id)) or removed
    return removed


async def installed() -> set[str]:
    """Network id prefixes (12 hex digits) that have a chain installed."""
    tools = await _tools()
    found: set[str] = set()
    for fam in tools.families:
        code, listing = await _run([fam.cmd, "-w", "-S"])
        if code == 0:
            found |= {
                ln[3 + len(PREFIX) :]
                for ln in listing.splitlines()
                if ln.startswith("-N " + PREFIX)
            }
    return found


# The grading browser's user (`orchestrator/verifier/_browser/_confine.py`): not `PREFIX`, which
# names sweep networks' chains (`installed()` would take it for one and `gc` remove it).
OWNER_CHAIN = "PWB_BROWSER"
# The ports the browser's egress proxy listens on (127.0.0.1 only), and the only ones the
# browser's user may reach: not any loopback listener (a gateway, a fake provider,
# another tool's admin port). Below Linux's ephemeral range (32768-60999), so no outgoing
# connection's source port takes one.
BROWSER_PORTS = (29400, 29999)


def _owner_rules(v6: bool) -> str:
    """The browser's user may open TCP to 127.0.0.1 on `BROWSER_PORTS` (its egress
    proxy) and nothing else."""
    reject = "icmp6-adm-prohibited" if v6 else "icmp-admin-prohibited"
    lines = ["*filter", f":{OWNER_CHAIN} - [0:0]"]
    if not v6:
        lo, hi = BROWSER_PORTS
        lines.append(
            f"-A {OWNER_CHAIN} -o lo -s 127.0.0.1 -d 127.0.0.1 -p tcp --dport {lo}:{hi} -j RETURN"
        )
    lines += [
        f"-A {OWNER_CHAIN} -p tcp -j REJECT --reject-with tcp-reset",
        f"-A {OWNER_CHAIN} -j REJECT --reject-with {reject}",
        "COMMIT",
        "",
    ]
    return "\n".join(lines)


async def confine_owner(uid: int) -> None:
    """Let the processes of `uid` open TCP connections to 127.0.0.1 on `BROWSER_PORTS`
    and send nothing
    else (IPv4 and IPv6): chain `OWNER_CHAIN`, jumped to from OUTPUT by owner. Static for
    the uid, so installed idempotently (refilled, hooked once) and never removed."""
    if uid == 0:
        raise FirewallUnavailable("host firewall: will not confine uid 0")
    tools = await _tools()
    for fam in tools.families:
        code, out = await _run([fam.restore, "-w", "--noflush"], _owner_rules(fam.v6).encode())
        if code != 0:
            raise FirewallUnavailable(
                f"host firewall: {fam.restore} failed for {OWNER_CHAIN}: {out}"
            )
        jump = ["-m", "owner", "--uid-owner", str(uid), "-j", OWNER_CHAIN]
        if (await _run([fam.cmd, "-w", "-C", "OUTPUT", *jump]))[0] == 0:
            continue
        code, out = await _run([fam.cmd, "-w", "-I", "OUTPUT", "1", *jump])
        if code != 0:
            raise FirewallUnavailable(f"host firewall: hooking {OWNER_CHAIN} into OUTPUT: {out}")
