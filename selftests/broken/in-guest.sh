#!/bin/sh
# Runs inside the debug-kernel VM: load broken.ko with bug=$1 ("" for none),
# then, for a leak, give kmemleak two scans at least 5 s apart.
set -u
bug=$1 ko=$2
kmemleak=/sys/kernel/debug/kmemleak

insmod "$ko" ${bug:+bug=$bug} || exit 1
case $bug in
leak | "")
	echo scan >$kmemleak
	sleep 6
	echo scan >$kmemleak
	cat $kmemleak
	;;
esac
