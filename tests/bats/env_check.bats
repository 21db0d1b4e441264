#!/usr/bin/env bats
# env/check against fake sysfs/proc/dev trees and fake command outputs:
# fixtures/env/vm is the soft-RoCE VM (rxe0 on veth0), fixtures/env/nic a
# host with a ConnectX (mlx5_0, RoCE, NUMA node 1).

load fixtures/env/helper

setup() {
	use_tree vm
}

# ---------------------------------------------------------------- whole runs

@test "check: the soft-RoCE VM passes and shows rxe0, GID 1 IPv4-mapped RoCE v2, MTU 1024, memlock" {
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'device rxe0'
	check_line 'gid rxe0/1' | grep -q 'index 1: RoCE v2, IPv4-mapped 198.18.1.1'
	check_line 'mtu rxe0/1' | grep -q 'active 1024, max 4096 (veth0 mtu 1500)'
	check_line 'memlock' | grep -q 'ulimit -l unlimited'
	check_line 'netdev rxe0/1' | grep -q 'rxe0 port 1 ==> veth0 (Up), IPv4 198.18.1.1'
	[[ $output == *"result: 0 failed, 0 warnings: a run can proceed"* ]]
}

@test "check: the GID table lists each valid entry and marks the picked index" {
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -qE '^    0 +RoCE v2 +IPv6 +yes +veth0 +fe80:'
	printf '%s\n' "$output" | grep -qE '^  \* 1 +RoCE v2 +IPv4 +no +veth0 +::ffff:198\.18\.1\.1$'
	[ "$(printf '%s\n' "$output" | grep -cE '^ +2 ')" -eq 0 ]
}

@test "check: --json is valid JSON with the port, GID index, MTU and can_run" {
	run "$ROOT/env/check" --json
	[ "$status" -eq 0 ]
	printf '%s' "$output" | python3 -m json.tool >/dev/null
	[ "$(json_get 'j["can_run"]')" = True ]
	[ "$(json_get 'j["ports"][0]["device"]')" = rxe0 ]
	[ "$(json_get 'j["ports"][0]["gid_index"]')" = 1 ]
	[ "$(json_get 'j["ports"][0]["active_mtu"]')" = 1024 ]
	[ "$(json_get 'j["ports"][0]["netdev"]')" = veth0 ]
	[ "$(json_get 'j["ports"][0]["gids"][1]["type"]')" = "RoCE v2" ]
	[ "$(json_get 'j["ports"][0]["gids"][1]["ipv4"]')" = 198.18.1.1 ]
	[ "$(json_get 'j["ports"][0]["gids"][0]["link_local"]')" = True ]
	[ "$(json_get 'j["numa"]["rxe0"]["node"]')" = None ]
	[ "$(json_get 'j["memlock"]["limit_bytes"]')" = unlimited ]
	[ "$(json_get 'j["counts"]["fail"]')" = 0 ]
	[ "$(json_get 'j["next_step"]')" = None ]
	[ "$(json_get 'all(c["status"] in ("ok","warn","fail") for c in j["checks"])')" = True ]
}

@test "check: --json of a failing host is valid JSON with can_run false and the next step" {
	no_rdma_kernel
	run "$ROOT/env/check" --json
	[ "$status" -eq 1 ]
	printf '%s' "$output" | python3 -m json.tool >/dev/null
	[ "$(json_get 'j["can_run"]')" = False ]
	[[ $(json_get 'j["next_step"]') == *"ci/vm run -- env/check"* ]]
	[ "$(json_get '[c["status"] for c in j["checks"] if c["id"]=="module.ib_uverbs"][0]')" = fail ]
	[ "$(json_get 'j["ports"]')" = "[]" ]
}

@test "check: JSON strings are escaped (quotes, backslashes, tabs)" {
	put proc/sys/kernel/hostname $'vm"1\\x\ty'
	run "$ROOT/env/check" --json
	[ "$status" -eq 0 ]
	[ "$(json_get 'j["host"]')" = $'vm"1\\x\ty' ]
}

@test "check: a kernel without RDMA fails, names ib_uverbs and rdma_rxe, and points to the VM" {
	no_rdma_kernel
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'module ib_uverbs' | grep -q '^FAIL'
	check_line 'device' | grep -q 'no RDMA device'
	check_line 'provider module' | grep -q 'rdma_rxe (soft-RoCE) is missing'
	check_line 'module rdma_ucm' | grep -q '^warn .*missing: this kernel (6.1.0-57-amd64) has no loadable modules'
	[[ $output == *"next step: this kernel (6.1.0-57-amd64) has no RDMA device and no rdma_rxe: run inside the soft-RoCE VM: ci/vm run -- env/check"* ]]
}

@test "check: no device but rdma_rxe loadable: the next step is env/softroce up" {
	rm -rf "$RB_SYSFS/class/infiniband" "$RB_SYSFS/class/infiniband_verbs" "$RB_SYSFS/module/rdma_rxe"
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'device' | grep -q '^FAIL'
	check_line 'provider module' | grep -q '^FAIL .*none loaded'
	[[ $output == *"fix: modprobe your NIC's driver (e.g. mlx5_ib), or soft-RoCE on a netdev: env/softroce up"* ]]
	[[ $output == *"fix: load your NIC's driver, or create a soft-RoCE device: env/softroce up"* ]]
	[[ $output == *"next step: create a soft-RoCE device: env/softroce up"* ]]
}

# ---------------------------------------------------------------- modules

@test "check: ib_uverbs not loaded but loadable: FAIL with modprobe ib_uverbs" {
	rm -rf "$RB_SYSFS/module/ib_uverbs"
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'module ib_uverbs' | grep -q '^FAIL .*not loaded'
	[[ $output == *"fix: modprobe ib_uverbs"* ]]
}

@test "check: ib_uverbs found through modules.dep when modinfo is absent" {
	rm -rf "$RB_SYSFS/module/ib_uverbs"
	PATH=$(path_without modinfo) run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	[[ $output == *"fix: modprobe ib_uverbs"* ]]
}

@test "check: a built-in module (modules.builtin, no /sys/module entry) counts as loaded" {
	rm -rf "$RB_SYSFS/module/ib_uverbs"
	put lib/modules/6.1.0-57-amd64/modules.builtin 'kernel/drivers/infiniband/core/ib_uverbs.ko'
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'module ib_uverbs' | grep -q '^ok .*loaded'
}

@test "check: rdma_ucm not loaded is a warning (rdma_cm only), the run can proceed" {
	rm -rf "$RB_SYSFS/module/rdma_ucm" "$RB_DEV/infiniband/rdma_cm"
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'module rdma_ucm' | grep -q '^warn .*rdma_cm connections (-R) will fail'
	check_line 'rdma_cm node' | grep -q '^warn'
	[[ $output == *"fix: modprobe rdma_ucm"* ]]
	[[ $output == *"2 warnings: a run can proceed"* ]]
}

@test "check: a device with a driver outside the known list passes the provider check" {
	rm -rf "$RB_SYSFS/module/rdma_rxe"
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'provider module' | grep -q '^ok .*devices are registered (rxe0)'
}

# ---------------------------------------------------------------- devices, ports

@test "check: --device names a missing device: FAIL listing the devices" {
	run "$ROOT/env/check" --device mlx5_9
	[ "$status" -eq 1 ]
	check_line 'device mlx5_9' | grep -q 'not found (devices: rxe0)'
}

@test "check: --device restricts the check to one device" {
	cp -R "$ENV_FIX/nic/sys/class/infiniband/mlx5_0" "$RB_SYSFS/class/infiniband/"
	run "$ROOT/env/check" --device rxe0
	[ "$status" -eq 0 ]
	check_line 'device rxe0'
	[[ $output != *mlx5_0* ]]
}

@test "check: ibv_devinfo cannot open the device: FAIL naming the provider package" {
	printf 'Failed to get IB devices list: Function not implemented\n' >"$RB_FAKE/ibv_devinfo.fail"
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'device rxe0' | grep -q '^FAIL .*libibverbs cannot open it: Failed to get IB devices list'
	[[ $output == *"ibverbs-providers"* ]]
}

@test "check: ibv_devinfo not installed: warning, state and link layer from sysfs" {
	PATH=$(path_without ibv_devinfo) run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'ibv_devinfo' | grep -q '^warn .*not installed'
	check_line 'port rxe0/1' | grep -q '^ok .*ACTIVE (LinkUp), Ethernet, 10 Gb/sec (1X FDR10)'
	check_line 'mtu rxe0/1' | grep -q '^warn .*active MTU unknown'
}

@test "check: the only port DOWN: FAIL with the netdev fix" {
	sed -i 's/PORT_ACTIVE (4)/PORT_DOWN (1)/; s/LINK_UP (5)/DISABLED (3)/' "$RB_FAKE/ibv_devinfo-rxe0.txt"
	put sys/class/infiniband/rxe0/ports/1/state '1: DOWN'
	put sys/class/infiniband/rxe0/ports/1/phys_state '3: Disabled'
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'port rxe0/1' | grep -q '^FAIL .*DOWN (Disabled), Ethernet: not ACTIVE'
	[[ $output == *"fix: bring the netdev up"* ]]
}

@test "check: a DOWN port beside an ACTIVE one is a warning" {
	cp -R "$ENV_FIX/nic/sys/class/infiniband/mlx5_0" "$RB_SYSFS/class/infiniband/"
	put sys/class/infiniband/mlx5_0/ports/1/state '1: DOWN'
	sed -i 's/PORT_ACTIVE (4)/PORT_DOWN (1)/' "$RB_FAKE/ibv_devinfo-mlx5_0.txt"
	run "$ROOT/env/check"
	# exit 1: the copied mlx5_0 has no uverbs device and no netdev in this
	# tree (those two FAIL); the DOWN port itself is no FAIL
	[ "$status" -eq 1 ]
	[ "$(grep -c '^FAIL' <<< "$output")" -eq 2 ]
	[ "$(grep -cE '^FAIL +(uverbs|netdev) mlx5_0' <<< "$output")" -eq 2 ]
	check_line 'port mlx5_0/1' | grep -q '^warn .*not ACTIVE'
	check_line 'port rxe0/1' | grep -q '^ok'
}

@test "check: an InfiniBand port in INIT (no subnet manager): FAIL naming opensm" {
	put sys/class/infiniband/rxe0/ports/1/link_layer InfiniBand
	put sys/class/infiniband/rxe0/ports/1/state '2: INIT'
	sed -i 's/PORT_ACTIVE (4)/PORT_INIT (2)/' "$RB_FAKE/ibv_devinfo-rxe0.txt"
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'port rxe0/1' | grep -q '^FAIL .*INIT'
	[[ $output == *"subnet manager (opensm)"* ]]
}

@test "check: active MTU 512: warning to raise the netdev MTU" {
	sed -i 's/active_mtu:\t\t1024 (3)/active_mtu:\t\t512 (2)/' "$RB_FAKE/ibv_devinfo-rxe0.txt"
	put sys/class/net/veth0/mtu 600
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'mtu rxe0/1' | grep -q '^warn .*active 512, max 4096 (veth0 mtu 600)'
	[[ $output == *"ip link set dev veth0 mtu"* ]]
}

# ---------------------------------------------------------------- uverbs

@test "check: no uverbs device in sysfs: FAIL" {
	rm -rf "$RB_SYSFS/class/infiniband_verbs"
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'uverbs rxe0' | grep -q '^FAIL .*no uverbs device for rxe0'
}

@test "check: /dev/infiniband/uverbs0 missing: FAIL" {
	rm -f "$RB_DEV/infiniband/uverbs0"
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'uverbs rxe0' | grep -q "^FAIL .*$RB_DEV/infiniband/uverbs0 missing"
}

@test "check: uverbs node not accessible by this user: FAIL with chmod/udev fix" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	[ "$(command id -u)" -eq 0 ] || skip "needs root to switch to an unprivileged user"
	# a world-readable copy of the tree, so only the uverbs node is refused
	local pub
	pub=$(mktemp -d /tmp/env-check-XXXXXX)
	cp -R "$T" "$pub/t" && cp -R "$RB_FAKE" "$pub/fake" && cp -R "$ROOT/env" "$pub/env"
	cp -R "$ENV_FIX/bin" "$pub/bin"
	chmod -R a+rX "$pub"
	chmod 0600 "$pub/t/dev/infiniband/uverbs0"
	run setpriv --reuid=65534 --regid=65534 --clear-groups env \
		RB_SYSFS="$pub/t/sys" RB_PROCFS="$pub/t/proc" RB_DEV="$pub/t/dev" \
		RB_MODULES_DIR="$pub/t/lib/modules" RB_LIBDIRS="$pub/t/lib" RB_FAKE="$pub/fake" \
		RB_FAKE_UID=65534 PATH="$pub/bin:$PATH" "$pub/env/check"
	rm -rf "$pub"
	[ "$status" -eq 1 ]
	check_line 'uverbs rxe0' | grep -q '^FAIL .*not readable and writable by user65534'
	[[ $output == *'MODE="0666"'* ]]
}

# ---------------------------------------------------------------- GID table, netdev

@test "check: empty GID table: FAIL" {
	for f in "$RB_SYSFS"/class/infiniband/rxe0/ports/1/gids/*; do
		printf '0000:0000:0000:0000:0000:0000:0000:0000\n' >"$f"
	done
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'gid rxe0/1' | grep -q '^FAIL .*GID table empty'
}

@test "check: RoCE v1 only: warning, RoCE v1 is not routable" {
	put sys/class/infiniband/rxe0/ports/1/gid_attrs/types/0 'IB/RoCE v1'
	put sys/class/infiniband/rxe0/ports/1/gid_attrs/types/1 'IB/RoCE v1'
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'gid rxe0/1' | grep -q '^warn .*index 0: RoCE v1, IPv6 link-local .*no RoCE v2 GID'
}

@test "check: no IPv4 on the netdev: warnings on the GID and the netdev, pick falls back to RoCE v2" {
	put sys/class/infiniband/rxe0/ports/1/gids/1 '0000:0000:0000:0000:0000:0000:0000:0000'
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'gid rxe0/1' | grep -q '^warn .*index 0: RoCE v2, IPv6 link-local .*no IPv4-mapped RoCE v2 GID'
	check_line 'netdev rxe0/1' | grep -q '^warn .*no IPv4 address'
	[[ $output == *"ip addr add ADDR/24 dev veth0"* ]]
}

@test "check: the netdev is down: warning with ip link set up" {
	put sys/class/net/veth0/operstate down
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'netdev rxe0/1' | grep -q '^warn .*veth0 (Down)'
	[[ $output == *"fix: ip link set dev veth0 up"* ]]
}

@test "check: a RoCE port with no netdev anywhere: warning" {
	rm -rf "$RB_SYSFS/class/infiniband/rxe0/ports/1/gid_attrs/ndevs" "$RB_SYSFS/class/infiniband/rxe0/parent"
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'netdev rxe0/1' | grep -q '^warn .*no netdev found behind this RoCE port'
}

@test "check: the netdev behind the port is gone: FAIL" {
	rm -rf "$RB_SYSFS/class/net/veth0"
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'netdev rxe0/1' | grep -q '^FAIL .*veth0 is not in'
}

@test "check: a ConnectX with RoCE v1 and v2 GIDs: the IPv4 RoCE v2 index (3) is picked" {
	use_tree nic
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'gid mlx5_0/1' | grep -q '^ok .*index 3: RoCE v2, IPv4-mapped 198.18.1.11 (4 valid entries)'
	printf '%s\n' "$output" | grep -qE '^    0 +RoCE v1 +IPv6 +yes'
	printf '%s\n' "$output" | grep -qE '^  \* 3 +RoCE v2 +IPv4'
	check_line 'device mlx5_0' | grep -q 'fw 28.39.1002'
	check_line 'port mlx5_0/1' | grep -q '50.0 Gbps 2X'
	check_line 'mtu mlx5_0/1' | grep -q 'active 4096, max 4096 (enp65s0f0np0 mtu 9000)'
}

@test "check: InfiniBand link layer: index 0 is picked, the IPoIB netdev is shown" {
	use_tree nic
	local p="sys/class/infiniband/mlx5_0"
	put "$p/ports/1/link_layer" InfiniBand
	rm -rf "$RB_SYSFS/class/infiniband/mlx5_0/ports/1/gid_attrs" "$RB_SYSFS/class/infiniband/mlx5_0/device/net/enp65s0f0np0"
	for i in 1 2 3; do put "$p/ports/1/gids/$i" '0000:0000:0000:0000:0000:0000:0000:0000'; done
	put "$p/ports/1/gids/0" 'fe80:0000:0000:0000:0c42:a103:005b:7c10'
	mkdir -p "$RB_SYSFS/class/infiniband/mlx5_0/device/net/ib0"
	put sys/class/net/ib0/operstate up
	put sys/class/net/ib0/mtu 4092
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'gid mlx5_0/1' | grep -q '^ok .*index 0'
	check_line 'netdev mlx5_0/1' | grep -q 'mlx5_0 port 1 ==> ib0 (Up)'
}

# ---------------------------------------------------------------- limits

@test "check: memlock below what a run registers, no CAP_IPC_LOCK: FAIL with limits.d fix" {
	use_tree nic
	sed -i 's/^Max locked memory .*/Max locked memory         8388608              8388608              bytes/' "$RB_PROCFS/self/limits"
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line memlock | grep -q '^FAIL .*ulimit -l 8 MiB < 64 MiB a run registers'
	[[ $output == *"/etc/security/limits.d/"* ]]
}

@test "check: memlock below the need but CAP_IPC_LOCK (root): ok" {
	sed -i 's/^Max locked memory .*/Max locked memory         8388608              8388608              bytes/' "$RB_PROCFS/self/limits"
	printf 'Name:\tbash\nCapEff:\t000001ffffffffff\n' >"$RB_PROCFS/self/status"
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line memlock | grep -q '^ok .*CAP_IPC_LOCK'
}

@test "check: --memlock sets what a run registers (and RB_MEMLOCK_NEED)" {
	use_tree nic
	sed -i 's/^Max locked memory .*/Max locked memory         8388608              8388608              bytes/' "$RB_PROCFS/self/limits"
	run "$ROOT/env/check" --memlock 4M
	[ "$status" -eq 0 ]
	check_line memlock | grep -q '^ok .*8 MiB >= 4 MiB'
	RB_MEMLOCK_NEED=1G run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line memlock | grep -q '< 1 GiB'
}

@test "check: a malformed --memlock is a usage error" {
	run "$ROOT/env/check" --memlock lots
	[ "$status" -eq 2 ]
	[[ $output == *"not a size"* ]]
}

@test "check: vm.max_map_count below 65530: warning suggesting 262144" {
	put proc/sys/vm/max_map_count 32768
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line vm.max_map_count | grep -q '^warn .*32768 < 65530'
	[[ $output == *"sysctl -w vm.max_map_count=262144"* ]]
}

@test "check: vm.max_map_count unreadable: warning" {
	rm -f "$RB_PROCFS/sys/vm/max_map_count"
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line vm.max_map_count | grep -q '^warn .*unreadable'
}

@test "check: vm.max_map_count 65530 (the default) is ok" {
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line vm.max_map_count | grep -qE '^ok +vm.max_map_count +65530$'
}

@test "check: hugepages are checked only when asked" {
	use_tree nic
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	[[ $output != *hugepages* ]]
	run "$ROOT/env/check" --hugepages 256
	[ "$status" -eq 0 ]
	check_line hugepages | grep -q '^ok .*512 free of 1024 (2048 kB each), need 256'
}

@test "check: too few free hugepages: FAIL with the sysctl to run" {
	use_tree nic
	run "$ROOT/env/check" --hugepages 1024
	[ "$status" -eq 1 ]
	check_line hugepages | grep -q '^FAIL .*512 free of 1024'
	[[ $output == *"sysctl -w vm.nr_hugepages=1536"* ]]
}

@test "check: --hugepages on a kernel without hugetlbfs: FAIL" {
	sed -i '/^Huge/d' "$RB_PROCFS/meminfo"
	run "$ROOT/env/check" --hugepages 4
	[ "$status" -eq 1 ]
	check_line hugepages | grep -q '^FAIL .*no HugePages lines'
}

@test "check: CPU governor powersave: warning naming the cpus" {
	use_tree nic
	put sys/devices/system/cpu/cpu2/cpufreq/scaling_governor powersave
	put sys/devices/system/cpu/cpu3/cpufreq/scaling_governor powersave
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'cpu governor' | grep -q "^warn .*2 of 4 cpus not 'performance': cpus 2,3"
	[[ $output == *"cpupower frequency-set -g performance"* ]]
}

@test "check: CPU governor performance everywhere is ok; no cpufreq is n/a" {
	use_tree nic
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'cpu governor' | grep -q '^ok .*performance on 4 cpus'
	use_tree vm
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'cpu governor' | grep -q '^ok .*n/a'
}

# ---------------------------------------------------------------- NUMA, IOMMU, versions

@test "check: NUMA node of the NIC and its local cores" {
	use_tree nic
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'numa mlx5_0' | grep -q 'node 1, local cores 8-15,24-31'
	run "$ROOT/env/check" --json
	[ "$status" -eq 0 ]
	[ "$(json_get 'j["numa"]["mlx5_0"]["node"]')" = 1 ]
	[ "$(json_get 'j["numa"]["mlx5_0"]["cpus"]')" = 8-15,24-31 ]
}

@test "check: numa_node -1 is a single-node machine; rxe (no device) is n/a" {
	use_tree nic
	put sys/class/infiniband/mlx5_0/device/numa_node -1
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'numa mlx5_0' | grep -q 'no NUMA node reported (single node), local cores 8-15,24-31'
	use_tree vm
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'numa rxe0' | grep -q 'n/a (virtual device'
}

@test "check: IOMMU passthrough (iommu=pt, identity groups) is ok" {
	use_tree nic
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line iommu | grep -q '^ok .*passthrough for mlx5_0 (group 1: identity) (command line: intel_iommu=on iommu=pt)'
}

@test "check: IOMMU translating the NIC's own group: warning naming the NIC and group" {
	use_tree nic
	put sys/kernel/iommu_groups/1/type DMA-FQ
	put proc/cmdline 'ro quiet intel_iommu=on'
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line iommu | grep -q '^warn .*translating the NIC.s DMA: mlx5_0 (group 1: DMA-FQ)'
	[[ $output == *"add iommu=pt to the kernel command line"* ]]
	[ "$(RB_PYTHON=none "$ROOT/env/check" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["iommu"])')" = translated ]
}

@test "check: IOMMU translating another group (not the NIC's): ok, the NIC's group decides" {
	use_tree nic
	put sys/kernel/iommu_groups/0/type DMA-FQ
	put proc/cmdline 'ro quiet intel_iommu=on'
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line iommu | grep -q '^ok .*passthrough for mlx5_0 (group 1: identity)'
}

@test "check: a NIC without an IOMMU group: off for it; rxe (no PCI function): the machine-wide rule" {
	use_tree nic
	rm "$RB_SYSFS/class/infiniband/mlx5_0/device/iommu_group"
	put sys/kernel/iommu_groups/0/type DMA-FQ
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line iommu | grep -q '^ok .*off for mlx5_0 (no IOMMU group'
	use_tree vm
	put sys/kernel/iommu_groups/0/type DMA-FQ
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line iommu | grep -q '^warn .*translating DMA for 1 groups'
}

@test "check: intel_iommu=on with no group types visible: warning" {
	use_tree vm
	rm -rf "$RB_SYSFS/kernel/iommu_groups"
	put proc/cmdline 'ro quiet intel_iommu=on'
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line iommu | grep -q '^warn .*on, mode not visible'
}

@test "check: kernel version unreadable: warning" {
	rm -f "$RB_PROCFS/sys/kernel/osrelease"
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line kernel | grep -q '^warn .*unknown'
}

@test "check: kernel and rdma-core versions from procfs and dpkg" {
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line kernel | grep -q '6.1.0-57-amd64'
	check_line rdma-core | grep -q '^ok .*44.0 (dpkg rdma-core 44.0-2)'
}

@test "check: rdma-core version from the libibverbs file name when no package record" {
	: >"$RB_FAKE/dpkg.status"
	: >"$T/lib/libibverbs.so.1.14.44.0"
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line rdma-core | grep -q '^ok .*44.0 (libibverbs.so.1.14.44.0)'
}

@test "check: rdma-core older than the oldest supported (v23) fails, naming it" {
	printf 'rdma-core 17.1-1\n' >"$RB_FAKE/dpkg.status"
	run "$ROOT/env/check"
	[ "$status" -ne 0 ]
	check_line rdma-core | grep -q '^FAIL .*17.1 (dpkg rdma-core 17.1-1) is older than v23'
	[[ $output == *"install rdma-core >= 23"* ]]
	printf 'rdma-core 23.0-1\n' >"$RB_FAKE/dpkg.status"
	run "$ROOT/env/check"
	[[ $output != *"older than v23"* ]]
	check_line rdma-core | grep -q '^ok .*23.0 (dpkg rdma-core 23.0-1)'
}

@test "check: ofed_info -s is reported beside the rdma-core version where present" {
	printf '#!/usr/bin/env bash\nprintf "MLNX_OFED_LINUX-5.8-1.0.1.1:\\n"\n' >"$BATS_TEST_TMPDIR/ofed_info"
	chmod +x "$BATS_TEST_TMPDIR/ofed_info"
	PATH="$BATS_TEST_TMPDIR:$PATH" run "$ROOT/env/check"
	check_line rdma-core | grep -q '^ok .*44.0 (dpkg rdma-core 44.0-2; MLNX_OFED MLNX_OFED_LINUX-5.8-1.0.1.1)'
}

@test "check: rdma-core version unknown: warning pointing to env/install-deps" {
	: >"$RB_FAKE/dpkg.status"
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line rdma-core | grep -q '^warn .*version unknown'
	[[ $output == *"env/install-deps"* ]]
}

# ---------------------------------------------------------------- mlx5_core without mlx5_ib

@test "check: mlx5_core loaded without mlx5_ib: FAIL naming mlx5_ib, no soft-RoCE advice" {
	use_tree nic
	rm -rf "$RB_SYSFS/module/mlx5_ib" "$RB_SYSFS/class/infiniband" "$RB_SYSFS/class/infiniband_verbs"
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'module mlx5_ib' | grep -q '^FAIL .*mlx5_core (ConnectX-4 and later, Connect-IB) is loaded, mlx5_ib is not'
	[[ $output == *"fix: modprobe mlx5_ib (at boot: add mlx5_ib to /etc/modules-load.d/rdma.conf)"* ]]
	[[ $output == *"next step: modprobe mlx5_ib (the NIC's driver is loaded without its RDMA module)"* ]]
	[[ $output != *softroce* ]]
}

@test "check: mlx4_core without mlx4_ib, and mlx4_ib not in the kernel: names the modules package" {
	use_tree nic
	rm -rf "$RB_SYSFS/module/mlx5_core" "$RB_SYSFS/class/infiniband" "$RB_SYSFS/class/infiniband_verbs"
	mkdir -p "$RB_SYSFS/module/mlx4_core"
	run "$ROOT/env/check"
	[ "$status" -eq 1 ]
	check_line 'module mlx4_ib' | grep -q '^FAIL .*mlx4_core (ConnectX-3) is loaded, mlx4_ib is not in this kernel (6.1.0-28-amd64)'
	[[ $output == *"linux-modules-extra-6.1.0-28-amd64"* ]]
}

# ---------------------------------------------------------------- PFC, trust, ECN

# dcb_pfc ON...: fake dcb output with PFC on the given priorities.
dcb_pfc() {
	local q line="prio-pfc"
	for q in 0 1 2 3 4 5 6 7; do
		if [[ " $* " == *" $q "* ]]; then line+=" $q:on"; else line+=" $q:off"; fi
	done
	printf '%s\n' "$line" >"$RB_FAKE/dcb-pfc-enp65s0f0np0.txt"
}

@test "check: PFC from dcb: on for --priority 3 is ok, off is a warning with the dcb fix" {
	use_tree nic
	dcb_pfc 3
	printf 'order: dscp\n' >"$RB_FAKE/dcb-apptrust-enp65s0f0np0.txt"
	run "$ROOT/env/check" --priority 3
	[ "$status" -eq 0 ]
	check_line 'pfc mlx5_0/1' | grep -q '^ok .*priority 3 lossless (PFC on: 3; dcb enp65s0f0np0)'
	check_line 'trust mlx5_0/1' | grep -q '^ok .*dscp (dcb enp65s0f0np0)'
	run "$ROOT/env/check" --priority 4
	check_line 'pfc mlx5_0/1' | grep -q '^warn .*PFC off on priority 4 (on: 3; dcb enp65s0f0np0)'
	[[ $output == *"fix: dcb pfc set dev enp65s0f0np0 prio-pfc 4:on"* ]]
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'pfc mlx5_0/1' | grep -q '^ok .*on for priorities: 3 (dcb enp65s0f0np0); --priority P checks'
	dcb_pfc
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'pfc mlx5_0/1' | grep -q 'on for priorities: none'
}

@test "check: PFC and trust from mlnx_qos when dcb cannot: PCP trust with a non-zero priority warns" {
	use_tree nic
	cat >"$RB_FAKE/mlnx_qos-enp65s0f0np0.txt" <<'EOF'
DCBX mode: OS controlled
Priority trust state: pcp
default priority:
Cable len: 7
PFC configuration:
	priority    0   1   2   3   4   5   6   7
	enabled     0   0   0   1   1   0   0   0
	buffer      0   0   0   1   1   0   0   0
tc: 0 ratelimit: unlimited, tsa: vendor
EOF
	run "$ROOT/env/check" --priority 4
	[ "$status" -eq 0 ]
	check_line 'pfc mlx5_0/1' | grep -q '^ok .*priority 4 lossless (PFC on: 3,4; mlnx_qos enp65s0f0np0)'
	check_line 'trust mlx5_0/1' | grep -q '^warn .*pcp (mlnx_qos enp65s0f0np0): untagged RoCE traffic carries no PCP and lands on priority 0, not 4'
	[[ $output == *"mlnx_qos -i enp65s0f0np0 --trust dscp"* ]]
	grep -q '^dcb pfc show dev enp65s0f0np0 prio-pfc$' "$RB_FAKE/calls"
	grep -q '^mlnx_qos -i enp65s0f0np0$' "$RB_FAKE/calls"
}

@test "check: a hung mlnx_qos is stopped after RB_TOOL_TIMEOUT_S s and the line says not checked; a bad limit is refused" {
	use_tree nic
	printf 'Priority trust state: dscp\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   1   1   0   0   0\n' >"$RB_FAKE/mlnx_qos-enp65s0f0np0.txt"
	run "$ROOT/env/check" --priority 4
	check_line 'pfc mlx5_0/1' | grep -q '^ok .*priority 4 lossless (PFC on: 3,4; mlnx_qos enp65s0f0np0)'
	# hung for 60 s (then it would answer), stopped after 1: not checked
	RB_TOOL_TIMEOUT_S=1 RB_FAKE_QOS_HANG=60 run "$ROOT/env/check" --priority 4
	[ "$status" -eq 0 ]
	check_line 'pfc mlx5_0/1' | grep -q '^ok .*not checked: neither iproute2.s dcb nor MLNX_OFED.s mlnx_qos answered for enp65s0f0np0'
	[ "$(grep -c '^mlnx_qos -i enp65s0f0np0$' "$RB_FAKE/calls")" -ge 2 ]
	for v in 0 601 5s; do
		RB_TOOL_TIMEOUT_S=$v run "$ROOT/env/check"
		[ "$status" -eq 2 ]
		[[ $output == *"RB_TOOL_TIMEOUT_S=$v: the tools' time limit is 1..600 seconds (default 5; unset it)"* ]] || { echo "$output"; false; }
	done
}

@test "check: ECN from sysfs roce_np/roce_rp on the chosen priority" {
	use_tree nic
	local q e="sys/class/net/enp65s0f0np0/ecn"
	for q in 0 1 2 3 4 5 6 7; do put "$e/roce_np/enable/$q" 0; put "$e/roce_rp/enable/$q" 0; done
	put "$e/roce_np/enable/3" 1
	put "$e/roce_rp/enable/3" 1
	run "$ROOT/env/check" --priority 3
	[ "$status" -eq 0 ]
	check_line 'ecn mlx5_0/1' | grep -q '^ok .*priority 3: notification and reaction point on (sysfs)'
	put "$e/roce_rp/enable/3" 0
	run "$ROOT/env/check" --priority 3
	[ "$status" -eq 0 ]
	check_line 'ecn mlx5_0/1' | grep -q '^warn .*priority 3: notification point on for 3, reaction point on for none (sysfs)'
	[[ $output == *"echo 1 > $RB_SYSFS/class/net/enp65s0f0np0/ecn/roce_rp/enable/3"* ]]
}

@test "check: without dcb, mlnx_qos or ECN sysfs each QoS line says what it could not check; rxe is n/a" {
	use_tree nic
	run "$ROOT/env/check" --priority 3
	[ "$status" -eq 0 ]
	check_line 'pfc mlx5_0/1' | grep -q '^ok .*not checked: neither iproute2.s dcb nor MLNX_OFED.s mlnx_qos answered for enp65s0f0np0'
	check_line 'trust mlx5_0/1' | grep -q '^ok .*not checked'
	check_line 'ecn mlx5_0/1' | grep -q '^ok .*not checked: no .*roce_np and roce_rp in sysfs'
	use_tree vm
	run "$ROOT/env/check" --priority 3
	check_line 'qos rxe0/1' | grep -q '^ok .*n/a (virtual device'
	[[ $output != *"pfc rxe0"* ]]
	run "$ROOT/env/check" --priority 8
	[ "$status" -eq 2 ]
	[[ $output == *"--priority '8' is not a priority (0-7"* ]]
}

# ---------------------------------------------------------------- path MTU

@test "check: path MTU without --peer is skipped with the reason" {
	run "$ROOT/env/check"
	[ "$status" -eq 0 ]
	check_line 'path mtu' | grep -q '^ok .*not checked: no peer given (--peer ADDR'
	! grep -q '^ping' "$RB_FAKE/calls"
}

@test "check: path MTU to each peer: ping -M do sized to the RoCE MTU + 32; a small hop fails by name" {
	use_tree nic
	printf '9000 icmp\n' >"$RB_FAKE/ping-198.18.1.12"
	printf '1500 icmp\n' >"$RB_FAKE/ping-198.18.1.13"
	printf '1500 silent\n' >"$RB_FAKE/ping-198.18.1.14"
	run "$ROOT/env/check" --peer 198.18.1.12,198.18.1.13 --peer 198.18.1.14 --peer 198.18.1.15
	[ "$status" -eq 1 ]
	grep -q '^ping -4 -M do -s 4128 -c 1 -W 2 198.18.1.12$' "$RB_FAKE/calls"
	check_line 'path mtu 198.18.1.12' | grep -q '^ok .*4128-byte pings pass unfragmented (RoCE MTU 4096 of mlx5_0/1'
	check_line 'path mtu 198.18.1.13' | grep -q "^FAIL .*a hop's MTU is 1500: RoCE MTU 4096 of mlx5_0/1 needs 4156 bytes"
	check_line 'path mtu 198.18.1.14' | grep -q "^FAIL .*answers small pings but not 4128-byte ones"
	check_line 'path mtu 198.18.1.15' | grep -q '^warn .*does not answer ping'
	[[ $output == *"ip link set dev enp65s0f0np0 mtu 9000"* ]]
}

@test "check: path MTU on the VM's rxe (RoCE MTU 1024) passes a 1500-byte path; an IPv6 peer is pinged with -6" {
	printf '1500 icmp\n' >"$RB_FAKE/ping-198.18.0.2"
	printf '1500 icmp\n' >"$RB_FAKE/ping-fd00::2"
	run "$ROOT/env/check" --peer 198.18.0.2 --peer fd00::2
	[ "$status" -eq 0 ]
	check_line 'path mtu 198.18.0.2' | grep -q '^ok .*1056-byte pings pass'
	check_line 'path mtu fd00::2' | grep -q '^ok '
	grep -q '^ping -6 -M do -s 1056 -c 1 -W 2 fd00::2$' "$RB_FAKE/calls"
	run "$ROOT/env/check" --peer 'a;b'
	[ "$status" -eq 2 ]
}

@test "check: a ping without -M (busybox) leaves the path MTU not checked, by name, not failed" {
	mkdir -p "$BATS_TEST_TMPDIR/bb"
	printf '#!/bin/sh\necho "ping: invalid option -- '"'"'M'"'"'" >&2\necho "BusyBox v1.35.0 multi-call binary." >&2\necho "Usage: ping [OPTIONS] HOST" >&2\nexit 1\n' >"$BATS_TEST_TMPDIR/bb/ping"
	chmod +x "$BATS_TEST_TMPDIR/bb/ping"
	PATH="$BATS_TEST_TMPDIR/bb:$PATH" run "$ROOT/env/check" --peer 198.18.0.2
	[ "$status" -eq 0 ]
	check_line 'path mtu 198.18.0.2' | grep -q "^ok .*not checked: this ping cannot forbid fragmentation (-M do: busybox's ping has no -M)"
}

# ---------------------------------------------------------------- JSON writers

@test "check: --json from python3's json module and from the bash writer (no python3) are the same document" {
	use_tree nic
	dcb_pfc 3
	put proc/sys/kernel/hostname $'node"1\\x\ty'
	local a b
	a=$("$ROOT/env/check" --json --priority 3 | sed 's/"time":"[^"]*",//')
	b=$(RB_PYTHON=no-such-python "$ROOT/env/check" --json --priority 3 | sed 's/"time":"[^"]*",//')
	[ -n "$a" ]
	[ "$a" = "$b" ]
	output=$b
	[ "$(json_get 'j["host"]')" = $'node"1\\x\ty' ]
	[ "$(json_get 'j["ports"][0]["gids"][3]["index"]')" = 3 ]
	[ "$(json_get 'j["numa"]["mlx5_0"]["cpus"]')" = 8-15,24-31 ]
	[ "$(json_get '[c["value"] for c in j["checks"] if c["id"]=="pfc.mlx5_0/1"][0]')" = "priority 3 lossless (PFC on: 3; dcb enp65s0f0np0)" ]
}

@test "check: the python3 writer keeps control characters (escaped); the bash writer drops them" {
	put proc/sys/kernel/hostname $'vm\x01one'
	run "$ROOT/env/check" --json
	[[ $output == *'"host":"vm\u0001one"'* ]]
	RB_PYTHON=no-such-python run "$ROOT/env/check" --json
	[[ $output == *'"host":"vmone"'* ]]
}

# ---------------------------------------------------------------- options

@test "check: --host runs the same checks over RB_SSH with the other arguments" {
	local ssh="$BATS_TEST_TMPDIR/fake-ssh"
	# a fake ssh: logs its arguments and runs the remote command here
	printf '#!/usr/bin/env bash\nprintf "%%s\\n" "$*" >>"$RB_FAKE/calls"\nexec bash -c "${*: -1}"\n' >"$ssh"
	chmod +x "$ssh"
	RB_SSH="$ssh -o BatchMode=yes" run "$ROOT/env/check" --host root@vm1 --json --device rxe0
	[ "$status" -eq 0 ]
	grep -q -- '-o BatchMode=yes root@vm1 bash -s -- --json --device rxe0' "$RB_FAKE/calls"
	[ "$(json_get 'j["ports"][0]["device"]')" = rxe0 ]
}

@test "check: unknown argument is a usage error; --help prints usage" {
	run "$ROOT/env/check" --frobnicate
	[ "$status" -eq 2 ]
	[[ $output == *"unknown argument '--frobnicate'"* ]]
	run "$ROOT/env/check" --help
	[ "$status" -eq 0 ]
	[[ $output == usage:* ]]
}
