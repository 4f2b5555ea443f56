# SPDX-License-Identifier: GPL-2.0
# The threads of a Perfetto trace, from protoc --decode's text of it
# against perfetto_subset.proto: a line "PID TID SLICES NAME" per
# ThreadDescriptor track (SLICES: the TYPE_SLICE_BEGIN events on that
# track, or on the track of each thread with a name_iid event named
# want, when -v want=NAME: the event names' iids are read from the
# interned event_names), then "untracked N": the slices on tracks that
# no ThreadDescriptor or ProcessDescriptor names.
/^  track_descriptor \{/ { in_td = 1; uuid = ""; next }
in_td && /^    uuid: / { uuid = $2 }
in_td && /^      pid: / { pid = $2 }
in_td && /^      tid: / { tid = $2 }
in_td && /^      thread_name: / { sub(/^      thread_name: /, ""); tname = $0 }
in_td && /^    process \{/ { proc[uuid] = 1 }
in_td && /^  \}/ {
	if (tid != "") {
		thread[uuid] = pid " " tid
		tn[uuid] = tname
		order[++nt] = uuid
	}
	in_td = 0; tid = ""; pid = ""; tname = ""
	next
}
/^  track_event \{/ { in_te = 1; begin = 0; iid = ""; tu = ""; next }
in_te && /^    type: TYPE_SLICE_BEGIN/ { begin = 1 }
in_te && /^    name_iid: / { iid = $2 }
in_te && /^    track_uuid: / { tu = $2 }
in_te && /^  \}/ {
	if (begin) {
		ev_tu[++ne] = tu
		ev_iid[ne] = iid
	}
	in_te = 0
	next
}
/^    event_names \{/ { in_en = 1; next }
in_en && /^      iid: / { en_iid = $2 }
in_en && /^      name: / { sub(/^      name: /, ""); en_name[en_iid] = $0 }
in_en && /^    \}/ { in_en = 0 }
END {
	for (i = 1; i <= ne; i++) {
		if (want != "" && en_name[ev_iid[i]] != "\"" want "\"")
			continue
		if (ev_tu[i] in thread)
			n[ev_tu[i]]++
		else if (!(ev_tu[i] in proc))
			untracked++
	}
	for (i = 1; i <= nt; i++)
		print thread[order[i]], n[order[i]] + 0, tn[order[i]]
	print "untracked", untracked + 0
}
