#!/usr/bin/env bats
# env/softroce against the fake VM tree (rxe0 on veth0, veth1 free) with
# fake rdma/modprobe/modinfo that edit the fake sysfs.

load fixtures/env/helper

setup() {
	use_tree vm
}

# no rdma command was run (a function, so a failure fails the test)
no_rdma_calls() { ! grep -q '^rdma ' "$RB_FAKE/calls"; }

@test "softroce: status lists rxe0 with its netdev, port state and IPv4 GID" {
	run "$ROOT/env/softroce" status
	[ "$status" -eq 0 ]
	[[ $output == *"rdma_rxe: loaded"* ]]
	[[ $output == *"rxe0: netdev veth0 (up), port 1 ACTIVE, IPv4 GIDs (index=address): 1=198.18.1.1"* ]]
}

@test "softroce: status without an rxe device exits 1 and says how to make one" {
	rm -rf "$RB_SYSFS/class/infiniband/rxe0"
	run "$ROOT/env/softroce" status
	[ "$status" -eq 1 ]
	[[ $output == *"no rxe device (create one: env/softroce up [IFACE])"* ]]
}

@test "softroce: status on a kernel without rdma_rxe exits 3 and points to the VM" {
	no_rdma_kernel
	run "$ROOT/env/softroce" status
	[ "$status" -eq 3 ]
	[[ $output == *"rdma_rxe: missing in this kernel (6.1.0-57-amd64)"* ]]
	[[ $output == *"ci/vm run -- CMD"* ]]
}

@test "softroce: up on a kernel without rdma_rxe exits 3, says so and points to ci/vm run" {
	no_rdma_kernel
	run "$ROOT/env/softroce" up veth1
	[ "$status" -eq 3 ]
	[[ $output == *"this kernel (6.1.0-57-amd64) has no rdma_rxe"* ]]
	[[ $output == *"(it has no loadable modules at all)"* ]]
	[[ $output == *"ci/vm run -- CMD (e.g. ci/vm run -- env/check)"* ]]
	no_rdma_calls
}

@test "softroce: up IFACE runs rdma link add with the next free name" {
	run "$ROOT/env/softroce" up veth1
	[ "$status" -eq 0 ]
	grep -qx 'rdma link add rxe1 type rxe netdev veth1' "$RB_FAKE/calls"
	[[ $output == *"created rxe1 on veth1"* ]]
	[[ $output == *"next: env/check --device rxe1"* ]]
	[ -e "$RB_SYSFS/class/infiniband/rxe1" ]
}

@test "softroce: up loads rdma_rxe first when it is not loaded" {
	rm -rf "$RB_SYSFS/module/rdma_rxe" "$RB_SYSFS/class/infiniband/rxe0"
	run "$ROOT/env/softroce" up veth0 --name rxe0
	[ "$status" -eq 0 ]
	[ "$(grep -E '^(modprobe|rdma) ' "$RB_FAKE/calls" | head -2 | tr '\n' '|')" = "modprobe rdma_rxe|rdma link add rxe0 type rxe netdev veth0|" ]
	[[ $output == *"loaded rdma_rxe"* ]]
}

@test "softroce: a failing modprobe is reported with what rdma_rxe needs" {
	rm -rf "$RB_SYSFS/module/rdma_rxe" "$RB_SYSFS/class/infiniband/rxe0"
	printf '#!/usr/bin/env bash\necho "modprobe: ERROR: could not insert rdma_rxe: Unknown symbol in module" >&2\nexit 1\n' >"$BATS_TEST_TMPDIR/modprobe"
	chmod +x "$BATS_TEST_TMPDIR/modprobe"
	PATH="$BATS_TEST_TMPDIR:$PATH" run "$ROOT/env/softroce" up veth0
	[ "$status" -eq 1 ]
	[[ $output == *"modprobe rdma_rxe failed: modprobe: ERROR: could not insert rdma_rxe"* ]]
	[[ $output == *"crc32_generic"* ]]
}

@test "softroce: up refuses a VLAN netdev and names the real device" {
	put sys/class/net/veth0.5/operstate up
	printf 'DEVTYPE=vlan\nINTERFACE=veth0.5\nIFINDEX=7\n' >"$RB_SYSFS/class/net/veth0.5/uevent"
	ln -s ../veth1 "$RB_SYSFS/class/net/veth0.5/lower_veth1"
	run "$ROOT/env/softroce" up veth0.5
	[ "$status" -eq 1 ]
	[[ $output == *"refusing veth0.5: it is a VLAN netdev"* ]]
	[[ $output == *"env/softroce up veth1"* ]]
	no_rdma_calls
}

@test "softroce: up refuses a VLAN known from /proc/net/vlan" {
	put sys/class/net/eth0.100/operstate up
	put proc/net/vlan/eth0.100 'eth0.100  VID: 100'
	run "$ROOT/env/softroce" up eth0.100
	[ "$status" -eq 1 ]
	[[ $output == *"it is a VLAN netdev"* ]]
}

@test "softroce: up refuses a second rxe on the same netdev, with the reason" {
	run "$ROOT/env/softroce" up veth0 --name rxe9
	[ "$status" -eq 1 ]
	[[ $output == *"refusing rxe9: rxe0 already runs on veth0, and the kernel allows one rxe per netdev"* ]]
	[[ $output == *"env/softroce down rxe0"* ]]
	no_rdma_calls
}

@test "softroce: up on the netdev that already has rxe0 is a no-op" {
	run "$ROOT/env/softroce" up veth0
	[ "$status" -eq 0 ]
	[[ $output == *"rxe0 already runs on veth0: nothing to do"* ]]
	no_rdma_calls
}

@test "softroce: up refuses a name taken by another device" {
	run "$ROOT/env/softroce" up veth1 --name rxe0
	[ "$status" -eq 1 ]
	[[ $output == *"refusing rxe0: an RDMA device of that name exists (on veth0)"* ]]
}

@test "softroce: up on an unknown netdev lists the netdevs" {
	run "$ROOT/env/softroce" up eth7
	[ "$status" -eq 1 ]
	[[ $output == *"no netdev 'eth7' (netdevs: lo veth0 veth1 )"* ]]
}

@test "softroce: up refuses lo" {
	run "$ROOT/env/softroce" up lo
	[ "$status" -eq 1 ]
	[[ $output == *"refusing lo"* ]]
}

@test "softroce: up needs root" {
	rm -rf "$RB_SYSFS/class/infiniband/rxe0"
	RB_FAKE_UID=1000 run "$ROOT/env/softroce" up veth0
	[ "$status" -eq 1 ]
	[[ $output == *"needs root"* ]]
	[[ $output == *"sudo env/softroce up veth0"* ]]
}

@test "softroce: up without IFACE takes the default-route interface" {
	rm -rf "$RB_SYSFS/class/infiniband/rxe0"
	mkdir -p "$RB_PROCFS/net"
	printf 'Iface\tDestination\tGateway\nveth1\t00000000\t01001EC6\nveth0\t000012C6\t00000000\n' >"$RB_PROCFS/net/route"
	run "$ROOT/env/softroce" up
	[ "$status" -eq 0 ]
	[[ $output == *"using netdev veth1"* ]]
	grep -qx 'rdma link add rxe0 type rxe netdev veth1' "$RB_FAKE/calls"
}

@test "softroce: up without IFACE and no default route takes the first netdev that is up" {
	rm -rf "$RB_SYSFS/class/infiniband/rxe0"
	run "$ROOT/env/softroce" up
	[ "$status" -eq 0 ]
	grep -qx 'rdma link add rxe0 type rxe netdev veth0' "$RB_FAKE/calls"
}

@test "softroce: up without IFACE and no netdev up: names the netdevs" {
	rm -rf "$RB_SYSFS/class/infiniband/rxe0"
	put sys/class/net/veth0/operstate down
	put sys/class/net/veth1/operstate down
	run "$ROOT/env/softroce" up
	[ "$status" -eq 1 ]
	[[ $output == *"no interface is up to put rxe on (netdevs: lo veth0 veth1 )"* ]]
}

@test "softroce: up without the rdma tool: install iproute2" {
	PATH=$(path_without rdma) run "$ROOT/env/softroce" up veth1
	[ "$status" -eq 1 ]
	[[ $output == *"the rdma tool is missing: install iproute2"* ]]
}

@test "softroce: a failing rdma link add is reported with rdma's message" {
	printf 'error: Invalid argument\n' >"$RB_FAKE/rdma.fail"
	run "$ROOT/env/softroce" up veth1
	[ "$status" -eq 1 ]
	[[ $output == *"rdma link add rxe1 type rxe netdev veth1 failed: error: Invalid argument"* ]]
}

@test "softroce: down removes every rxe device" {
	run "$ROOT/env/softroce" up veth1
	[ "$status" -eq 0 ]
	run "$ROOT/env/softroce" down
	[ "$status" -eq 0 ]
	grep -qx 'rdma link delete rxe0' "$RB_FAKE/calls"
	grep -qx 'rdma link delete rxe1' "$RB_FAKE/calls"
	[[ $output == *"removed rxe0"* && $output == *"removed rxe1"* ]]
	[ ! -e "$RB_SYSFS/class/infiniband/rxe0" ]
}

@test "softroce: down NAME removes only NAME; down with none left is a no-op" {
	run "$ROOT/env/softroce" down rxe0
	[ "$status" -eq 0 ]
	grep -qx 'rdma link delete rxe0' "$RB_FAKE/calls"
	: >"$RB_FAKE/calls"
	run "$ROOT/env/softroce" down
	[ "$status" -eq 0 ]
	[[ $output == *"no rxe device: nothing to do"* ]]
	no_rdma_calls
}

@test "softroce: down refuses a device that is not rxe" {
	cp -R "$ENV_FIX/nic/sys/class/infiniband/mlx5_0" "$RB_SYSFS/class/infiniband/"
	run "$ROOT/env/softroce" down mlx5_0
	[ "$status" -eq 1 ]
	[[ $output == *"refusing mlx5_0: not an rxe device"* ]]
}

@test "softroce: usage errors exit 2" {
	run "$ROOT/env/softroce"
	[ "$status" -eq 2 ]
	run "$ROOT/env/softroce" sideways
	[ "$status" -eq 2 ]
	run "$ROOT/env/softroce" up veth0 veth1
	[ "$status" -eq 2 ]
	run "$ROOT/env/softroce" --help
	[ "$status" -eq 0 ]
	[[ $output == usage:* ]]
}
