#!/bin/sh
# apt.sh ARGS... - apt-get ARGS, waiting for apt's locks instead of failing.
#
# A new Debian machine often runs apt at boot (apt-daily, unattended
# upgrades), and the test suite's own installers may run side by side
# (make -j check): apt-get then fails at once with "Could not get lock".
# DPkg::Lock::Timeout makes install wait for dpkg's lock, but `apt-get
# update` still fails on the lists lock, so a lock failure is retried for up
# to 10 minutes; any other failure is returned as it is.
tries=0
while :; do
	out=$(DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@" 2>&1)
	rc=$?
	case "$out" in
	*"Could not get lock"* | *"Unable to lock"*)
		if [ $rc -ne 0 ] && [ $tries -lt 120 ]; then
			tries=$((tries + 1))
			sleep 5
			continue
		fi ;;
	esac
	[ -n "$out" ] && printf '%s\n' "$out"
	exit $rc
done
