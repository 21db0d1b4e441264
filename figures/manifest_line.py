#!/usr/bin/env python3
"""One line for a figure's subtitle from a run's manifest.json.

Usage: manifest_line.py MANIFEST.json

Prints where the run was measured: on the VM test bed, the number of VMs,
their vCPUs and memory, the accelerator (TCG or KVM) and the physical
host's CPU model and cores; elsewhere "bare metal" or "VM" (the hosts'
hypervisor flag) and the CPU model; then every host with its role
(server, client) and its cores and 1-minute load when the run started. Written by experiments/run
(experiments/lib/manifest.sh); read by figures/plot.
"""
import json
import sys


def role(h, roles):
    """server, client or server+client: the host's part in the run, from
    the manifest's roles (hosts-file line numbers)"""
    line = str(h.get("line", ""))
    parts = []
    if not line:
        return ""
    if str(roles.get("server", "")) == line:
        parts.append("server")
    if line in str(roles.get("clients", "")).split():
        parts.append("client")
    return "+".join(parts)


def host(h, roles):
    s = h.get("hostname") or h.get("address") or "?"
    r = role(h, roles)
    if r:
        s += " " + r
    extra = []
    if h.get("cores"):
        extra.append("%d cores" % h["cores"])
    if h.get("load1") is not None:
        extra.append("load %g" % h["load1"])
    return s + (" (" + ", ".join(extra) + ")" if extra else "")


def line(path):
    """The subtitle's line for the manifest at PATH (figures/plotfacts.py
    calls it in its own process)."""
    m = json.load(open(path))
    hosts = m.get("hosts") or []
    bed = m.get("vm_bed")
    parts = []
    if bed:
        load = (bed.get("host_load") or "").split()
        parts.append("bed: %s VM(s) x %s vCPU, %s MiB, %s on %s (%s cores%s)" % (
            bed.get("vms"), bed.get("vcpus_per_vm"), bed.get("mem_mib_per_vm"),
            (bed.get("accel") or "?").upper(), bed.get("host_cpu_model") or "?",
            bed.get("host_cores"), (", load %s" % load[0]) if load else ""))
    else:
        kind = "VM" if any(h.get("hypervisor") == "yes" for h in hosts) else "bare metal"
        cpu = next((h.get("cpu_model") for h in hosts if h.get("cpu_model")), "")
        parts.append(kind + ((", " + cpu) if cpu else ""))
    if hosts:
        roles = m.get("roles") or {}
        parts.append("hosts at start: " + ", ".join(host(h, roles) for h in hosts))
    return "; ".join(parts)


def main():
    print(line(sys.argv[1]))


if __name__ == "__main__":
    main()
