#!/usr/bin/env bash
# Tests the Slurm path for real: installs Debian's slurm-wlm and munge if they
# are missing, starts a one-node cluster on loopback (munged, slurmctld and
# slurmd as root, every file under one temp dir, nothing under /etc), submits
# an example sweep as a job array (scripts/slurm/sweep-array.sbatch, the job
# script the README points to) and weft merge as a job that depends on it, as
# the README does, and checks that the merged runs.jsonl (and the tables made
# from it) are byte for byte those of the same sweep run locally. Every daemon
# it started, and everything they started, is stopped on every way out,
# failure and signals included.
#
# Needs root (SlurmUser=root). CI runs it from .ci/run after the unit tests.
#
# Environment:
#   SLURM_TEST_SWEEP    sweep file (default configs/sweeps/bus-latency.toml)
#   SLURM_TEST_SHARDS   array size N (default 4: more tasks than CPUs, so some queue)
#   SLURM_TEST_TIMEOUT  seconds the jobs may take (default 600)
#   SLURM_TEST_KEEP=1   keep the temp dir (configs, logs, outputs) afterwards
#   WEFT                a weft binary to use instead of building ./cmd/weft
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

sweep=${SLURM_TEST_SWEEP:-configs/sweeps/bus-latency.toml}
shards=${SLURM_TEST_SHARDS:-4}
timeout=${SLURM_TEST_TIMEOUT:-600}
jobscript=$repo/scripts/slurm/sweep-array.sbatch

say() { printf 'slurm test: %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
	say "needs root (it installs packages and runs slurmctld and slurmd with SlurmUser=root)" >&2
	exit 1
fi
[ -f "$sweep" ] || { say "no sweep file $sweep" >&2; exit 1; }
[[ $shards =~ ^[1-9][0-9]*$ ]] || { say "SLURM_TEST_SHARDS must be a positive number" >&2; exit 1; }
case $sweep in /*) ;; *) sweep=$repo/$sweep ;; esac

# --- install ---------------------------------------------------------------

installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }

missing=()
for p in slurm-wlm munge; do
	installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing ${missing[*]}"
	# Keep the packages' init scripts from starting daemons of their own:
	# only the ones below run, and only while this script does.
	policy=/usr/sbin/policy-rc.d made_policy=
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=1
		trap 'rm -f "$policy"' EXIT
	fi
	export DEBIAN_FRONTEND=noninteractive
	rc=0
	{ apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } \
		>/tmp/slurm-test-apt.log 2>&1 || rc=$?
	[ -z "$made_policy" ] || { rm -f "$policy"; trap - EXIT; }
	if [ "$rc" -ne 0 ]; then
		tail -n 30 /tmp/slurm-test-apt.log >&2
		say "FAILED: apt-get install ${missing[*]} (exit $rc)" >&2
		exit 1
	fi
fi
say "$(slurmctld -V), munge $(dpkg-query -W -f='${Version}' munge)"

# --- the cluster's files ---------------------------------------------------

tmp=$(mktemp -d /tmp/weft-slurm.XXXXXX)
chmod 755 "$tmp"
mkdir -p "$tmp"/{munge,ctld,spool,log,out,jobs}
# Everything started below carries this variable (the daemons in their
# environment, slurmstepd and the job's tasks inherit it), so the cleanup can
# find exactly the processes this run started, and no other.
tag="WEFT_SLURM_TEST=$tmp"
export SLURM_CONF=$tmp/slurm.conf
pids=()       # daemons, in start order
names=()

# --- cleanup ----------------------------------------------------------------

failed=
dump_logs() {
	local f
	for f in "$tmp"/log/*.log "$tmp"/jobs/*.out; do
		[ -s "$f" ] || continue
		echo "----- ${f#"$tmp"/} (last 40 lines)" >&2
		tail -n 40 "$f" >&2
	done
}

# Processes this run started that are still alive: the daemons and anything
# carrying the tag (slurmstepd, job tasks).
our_procs() {
	local d pid env
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ "$pid" = "$$" ] || [ "$pid" = "$BASHPID" ] && continue
		env=$({ tr '\0' '\n' <"$d/environ"; } 2>/dev/null) || continue
		[[ $'\n'$env$'\n' == *$'\n'$tag$'\n'* ]] && echo "$pid"
	done
}

cleanup() {
	local rc=$? i pid left
	trap - EXIT INT TERM HUP
	set +e
	if [ "$rc" -ne 0 ]; then
		dump_logs
		[ -n "$failed" ] || failed="exit status $rc"
	fi
	# Cancel what is still queued or running while slurmctld can still do it.
	if [ ${#pids[@]} -gt 1 ] && kill -0 "${pids[1]}" 2>/dev/null; then
		timeout 10 scancel --quiet --user=root >/dev/null 2>&1
		for ((i = 0; i < 20; i++)); do
			[ -z "$(timeout 5 squeue -h 2>/dev/null)" ] && break
			sleep 0.5
		done
	fi
	# Stop the daemons, newest first: slurmd, slurmctld, munged; give them and
	# whatever they started 10 s to go, then kill what is left.
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill -TERM "${pids[i]}" 2>/dev/null
	done
	for ((i = 0; i < 40; i++)); do
		left=$(our_procs)
		for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && left+=" $pid"; done
		[ -z "$left" ] && break
		sleep 0.25
	done
	for pid in "${pids[@]}" $(our_procs); do
		kill -KILL "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	sleep 0.2
	left=$(our_procs)
	if [ -n "$left" ]; then
		ps -o pid,ppid,stat,cmd -p "${left//$'\n'/,}" >&2
		failed="${failed:+$failed; }processes left running: $left"
		rc=1
	fi
	if [ "${SLURM_TEST_KEEP:-}" = 1 ] || [ "$rc" -ne 0 ]; then
		say "files kept in $tmp" >&2
	else
		rm -rf "$tmp"
	fi
	[ "$rc" -eq 0 ] || say "FAILED: $failed" >&2
	exit "$rc"
}
trap cleanup EXIT
trap 'failed="line $LINENO: $BASH_COMMAND exited $?"' ERR
trap 'failed="interrupted (SIGINT)"; exit 130' INT
trap 'failed="terminated (SIGTERM)"; exit 143' TERM
trap 'failed="hung up (SIGHUP)"; exit 129' HUP

fail() {
	failed=$*
	exit 1
}

# start NAME CMD...: runs a daemon in the foreground, in the background of
# this script, so that its pid is known for sure; its log (stderr) goes to
# log/NAME.log.
start() {
	local name=$1
	shift
	env "$tag" "$@" >"$tmp/log/$name.log" 2>&1 &
	pids+=($!)
	names+=("$name")
}

alive() {
	local i
	for i in "${!pids[@]}"; do
		kill -0 "${pids[i]}" 2>/dev/null || {
			tail -n 20 "$tmp/log/${names[i]}.log" >&2
			fail "${names[i]} exited"
		}
	done
}

# Two free loopback ports, one for slurmctld and one for slurmd.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ctld_port=
for ((p = 16817 + RANDOM % 2000 * 2, k = 0; k < 50; p += 2, k++)); do
	if port_free "$p" && port_free $((p + 1)); then ctld_port=$p; break; fi
done
[ -n "$ctld_port" ] || fail "no two free loopback ports"
slurmd_port=$((ctld_port + 1))

dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
chmod 755 "$tmp/munge"
: >"$tmp/plugstack.conf"

cpus=$(nproc)
cat >"$SLURM_CONF" <<EOF
# One node on loopback, made by scripts/slurm-test.sh.
ClusterName=weft-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/ctld
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$tmp/plugstack.conf
# No cgroups (they need a cgroup mount this sandbox need not have).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

# --- start ------------------------------------------------------------------

start munged munged --foreground --force \
	--socket="$tmp/munge/munge.socket" --key-file="$tmp/munge/munge.key" \
	--pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/munged.seed" \
	--log-file="$tmp/log/munged-file.log"
for ((i = 0; i < 100; i++)); do
	[ -S "$tmp/munge/munge.socket" ] && break
	alive
	sleep 0.1
done
munge --socket="$tmp/munge/munge.socket" -n | unmunge --socket="$tmp/munge/munge.socket" >/dev/null \
	|| fail "munge cannot encode and decode a credential"

start slurmctld slurmctld -D -i -f "$SLURM_CONF"
for ((i = 0; i < 100; i++)); do
	[[ $(scontrol ping 2>/dev/null) == *"is UP"* ]] && break
	alive
	sleep 0.2
done
[[ $(scontrol ping 2>&1) == *"is UP"* ]] || fail "slurmctld does not answer"

start slurmd slurmd -D -N localhost -f "$SLURM_CONF"
state=
for ((i = 0; i < 150; i++)); do
	state=$(sinfo -h -N -n localhost -o '%t' 2>/dev/null || true)
	[ "$state" = idle ] && break
	alive
	sleep 0.2
done
[ "$state" = idle ] || { sinfo -R >&2; fail "node localhost is '$state', not idle"; }
say "cluster up: munged, slurmctld :$ctld_port, slurmd :$slurmd_port, node localhost idle ($cpus CPUs)"

# --- the sweep, sharded on the cluster and locally --------------------------

weft=${WEFT:-}
if [ -z "$weft" ]; then
	weft=$tmp/weft
	go build -o "$weft" ./cmd/weft || fail "go build ./cmd/weft"
fi

# wait_job ID WHAT: waits until job ID has left the queue.
wait_job() {
	local queued
	while :; do
		queued=$(squeue -h -j "$1" -o %i) || fail "squeue -j $1"
		[ -n "$queued" ] || return 0
		((SECONDS - t0 < timeout)) || { squeue >&2; fail "$2 still queued or running after ${timeout}s"; }
		alive
		sleep 0.5
	done
}

# check_job ID WHAT N: every one of the N jobs of ID (N array tasks, or 1)
# must have COMPLETED with exit code 0; slurmctld keeps finished jobs for
# MinJobAge seconds, so no accounting is needed.
check_job() {
	local jobs ok states
	jobs=$(scontrol -o show job "$1") || fail "scontrol show job $1"
	ok=$(grep -c 'JobState=COMPLETED .*ExitCode=0:0' <<<"$jobs" || true)
	if [ "$ok" -ne "$3" ]; then
		sed -E 's/^(JobId=[^ ]+).*(JobState=[^ ]+).*(Reason=[^ ]+).*(ExitCode=[^ ]+).*/\1 \2 \3 \4/' <<<"$jobs" >&2
		states=$(sed -E 's/.*JobState=([A-Z_]+) .*ExitCode=([0-9:]+).*/\1 exit \2/' <<<"$jobs" |
			sort | uniq -c | sed -E 's/^ *//' | paste -sd, -)
		fail "$2: $states"
	fi
}

out=$tmp/out
t0=$SECONDS
# The array, then the merge as a job that waits for it, as the README does.
job=$(env "$tag" WEFT="$weft" sbatch --parsable --array=0-$((shards - 1)) \
	--chdir="$repo" --output="$tmp/jobs/%A_%a.out" \
	"$jobscript" "$sweep" "$shards" "$out") || fail "sbatch the array"
job=${job%%;*}
merge=$(env "$tag" sbatch --parsable --dependency=afterok:"$job" --job-name=weft-merge \
	--chdir="$repo" --output="$tmp/jobs/merge-%j.out" \
	--wrap "exec $(printf %q "$weft") merge $(printf %q "$out")/shard-* --out $(printf %q "$out/merged")") ||
	fail "sbatch the merge"
merge=${merge%%;*}
say "submitted ${sweep#"$repo"/} as job array $job (tasks 0-$((shards - 1))), then weft merge as job $merge (afterok)"

# Run the same sweep locally meanwhile (in the background, tagged, so that a
# signal stops the script at once and the cleanup stops the sweep).
env "$tag" "$weft" sweep "$sweep" --out "$out/local" --quiet >"$tmp/log/local.out" 2>&1 &
local_pid=$!
wait "$local_pid" || { tail -n 20 "$tmp/log/local.out" >&2; fail "the local sweep"; }

wait_job "$job" "job array $job"
check_job "$job" "job array $job" "$shards"
for ((i = 0; i < shards; i++)); do
	[ -f "$out/shard-$i/runs.jsonl" ] || fail "shard $i wrote no $out/shard-$i/runs.jsonl"
done
say "job array $job: $shards tasks COMPLETED in $((SECONDS - t0))s"
wait_job "$merge" "merge job $merge"
check_job "$merge" "merge job $merge" 1
say "merge job $merge COMPLETED"

# The merged sweep must be the local one: runs.jsonl byte for byte, and the
# tables of the report made from it (report.md differs: it names the command
# that wrote it).
[ -s "$out/local/runs.jsonl" ] || fail "the local sweep wrote no runs.jsonl"
for f in runs.jsonl sweep.csv sweep.json sweep.md; do
	[ -f "$out/local/$f" ] || continue
	if ! cmp "$out/merged/$f" "$out/local/$f"; then
		echo "first differences (< merged, > local; lines cut at 200 characters):" >&2
		diff <(cut -c1-200 "$out/merged/$f") <(cut -c1-200 "$out/local/$f") | head -n 12 >&2 || true
		fail "merged $f differs from the local run's"
	fi
done
say "merged runs.jsonl ($(wc -l <"$out/local/runs.jsonl") runs) and tables: the same bytes as the local run's"
say "$shards shards merged, identical to the local run"
