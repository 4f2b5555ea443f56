// SPDX-License-Identifier: GPL-2.0
/* CSV: RFC 4180 quoting, missing values, the exact tables; cells in JSON. */
#include <stdlib.h>
#include "model/check.h"
#include "model/dump_json.h"
#include "out/json_str.h"
#include "test.h"

static char *field(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct st_obuf o;
	char b[8];

	st_obuf_init(&o, f, b, sizeof(b));
	st_csv_field(&o, s);
	st_obuf_flush(&o);
	fclose(f);
	return buf;
}

/* One cell as the CSV writer prints it. */
static char *value(struct st_cell c)
{
	char text[48];

	return field(st_cell_text(&c, text, sizeof(text)));
}

static char *table(const struct st_dump *d, enum st_table_kind kind)
{
	struct st_view v = { .dump = d };
	struct st_dump_table dt;
	struct st_sysagg *aggs = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (kind == ST_TABLE_SYSCALLS)
		st_aggregate_syscalls(d, true, &aggs, &v.naggs);
	v.aggs = aggs;
	st_dump_table(&dt, &v, kind, d->symbolized);
	st_table_csv(f, &dt.t);
	fclose(f);
	free(aggs);
	return buf;
}

TEST(csv_plain_field_is_not_quoted)
{
	EXPECT_STREQ(field("getpid"), "getpid");
	EXPECT_STREQ(field("/usr/lib/libc.so.6"), "/usr/lib/libc.so.6");
	EXPECT_STREQ(field(""), "");
	EXPECT_STREQ(field("a b"), "a b");
}

TEST(csv_special_characters_are_quoted)
{
	EXPECT_STREQ(field("a,b"), "\"a,b\"");
	EXPECT_STREQ(field("say \"hi\""), "\"say \"\"hi\"\"\"");
	EXPECT_STREQ(field("\""), "\"\"\"\"");
	EXPECT_STREQ(field("line\nbreak"), "\"line\nbreak\"");
	EXPECT_STREQ(field("cr\rhere"), "\"cr\rhere\"");
}

TEST(csv_values_by_type)
{
	EXPECT_STREQ(value((struct st_cell){ .kind = ST_NULL }), "");
	EXPECT_STREQ(value((struct st_cell){ .kind = ST_U64, .u = 0 }), "0");
	EXPECT_STREQ(value((struct st_cell){ .kind = ST_U64, .u = UINT64_MAX }),
		     "18446744073709551615");
	EXPECT_STREQ(value((struct st_cell){ .kind = ST_S64, .u = (uint64_t)-7 }), "-7");
	EXPECT_STREQ(value((struct st_cell){ .kind = ST_BOOL, .u = 1 }), "1");
	EXPECT_STREQ(value((struct st_cell){ .kind = ST_HEX, .u = 0x7f0a }), "0x7f0a");
	EXPECT_STREQ(value((struct st_cell){ .kind = ST_FIXED, .decimals = 3, .u = 12345 }),
		     "12.345");
	EXPECT_STREQ(value((struct st_cell){ .kind = ST_FIXED, .decimals = 3, .u = 5 }), "0.005");
	EXPECT_STREQ(value((struct st_cell){ .kind = ST_FIXED, .decimals = 4, .u = 5 }), "0.0005");
	EXPECT_STREQ(value((struct st_cell){ .kind = ST_FIXED, .decimals = 2, .u = 10000 }),
		     "100.00");
	EXPECT_STREQ(value((struct st_cell){ .kind = ST_STR, .s = "x,y" }), "\"x,y\"");
}

TEST(csv_processes_table_exact)
{
	struct st_dump d;

	st_fixture(&d);
	EXPECT_STREQ(table(&d, ST_TABLE_PROCESSES),
		"session_id,id,parent_id,prev_id,pid,tgid,ppid,comm,exe,start_ns,end_ns,"
		"wall_ns,start_time,end,exit_code,exit_signal,core_dumped,threads,"
		"syscalls,errors,syscall_ns,sites,user_time_ns,sys_time_ns,"
		"voluntary_ctxt_switches,involuntary_ctxt_switches,minor_faults,"
		"major_faults,instructions,cycles,task_clock_ns,syscalls_per_kinsn,"
		"attached,argv,argv_truncated\n"
		"7,1,,,100,100,99,sh,/bin/sh,1000,5000,4000,"
		"2023-11-14T22:13:20.000001000Z,exited,0,,0,1,10,1,1000,2,300,400,"
		"5,6,7,8,20000,,,0.500,0,,\n"
		"7,2,1,,101,101,100,\"a,b\"\"c\",,2000,,,"
		"2023-11-14T22:13:20.000002000Z,running,,,,1,5,0,500,1,0,0,"
		"0,0,0,0,,,,,1,,\n");
	st_dump_free(&d);
}

TEST(csv_counter_goes_to_the_column_of_its_mode)
{
	struct st_dump d;
	char *out, *row;

	st_fixture(&d);
	d.session.counters = SYSTRACE_COUNTERS_TASK_CLOCK;
	out = table(&d, ST_TABLE_PROCESSES);
	row = strchr(out, '\n') + 1;
	EXPECT_STREQ(strstr(row, ",8,"), ",8,,,20000,,0,,\n7,2,1,,101,101,100,\"a,b\"\"c\",,2000,,,"
		     "2023-11-14T22:13:20.000002000Z,running,,,,1,5,0,500,1,0,0,0,0,0,0,,,,,1,,\n");
	st_dump_free(&d);
}

TEST(csv_sites_table_exact)
{
	struct st_dump d;

	st_fixture(&d);
	EXPECT_STREQ(table(&d, ST_TABLE_SITES),
		"session_id,proc_id,pid,comm,addr,abi,nr,syscall,map,path,offset,"
		"calls,errors,total_ns,avg_ns,min_ns,max_ns,first_ns,first_ordinal,"
		"inode,dev,mtime_ns,errnos,errno_other\n"
		"7,1,100,sh,0x7f0000001000,x64,39,getpid,file,"
		"/usr/lib/x86_64-linux-gnu/libc.so.6,0xe1000,6,1,600,100,50,200,1100,0,"
		"1234,2049,1690000000000000000,EAGAIN(11)=1,0\n"
		"7,1,100,sh,0xf7f00000,ia32,20,getpid,vdso,,0xf7f00000,4,0,400,100,90,"
		"110,1200,3,,,,,0\n"
		"7,2,101,\"a,b\"\"c\",0x401000,x64,39,getpid,anon,,0x401000,5,0,500,100,"
		"100,100,2100,0,,,,,0\n");
	st_dump_free(&d);
}

TEST(csv_symbol_columns_follow_when_symbolized)
{
	struct st_dump d;
	char *out;

	st_fixture_symbolized(&d);
	out = table(&d, ST_TABLE_SITES);
	EXPECT_TRUE(strstr(out, ",errnos,errno_other,object,symbol,symbol_offset,build_id,"
			   "symbol_error\n"));
	EXPECT_TRUE(strstr(out, ",EAGAIN(11)=1,0,/usr/lib/x86_64-linux-gnu/libc.so.6,"
			   "getpid,0x9,,\n"));
	EXPECT_TRUE(strstr(out, "110,1200,3,,,,,0,,,,,\n"));
	st_dump_free(&d);
}

TEST(csv_syscalls_table_exact)
{
	struct st_dump d;

	st_fixture(&d);
	EXPECT_STREQ(table(&d, ST_TABLE_SYSCALLS),
		"session_id,proc_id,pid,comm,abi,nr,syscall,calls,errors,total_ns,"
		"min_ns,max_ns,sites,errnos,errno_other\n"
		"7,1,100,sh,x64,39,getpid,6,1,600,50,200,1,EAGAIN(11)=1,0\n"
		"7,1,100,sh,ia32,20,getpid,4,0,400,90,110,1,,0\n"
		"7,2,101,\"a,b\"\"c\",x64,39,getpid,5,0,500,100,100,1,,0\n");
	st_dump_free(&d);
}

TEST(csv_empty_session_is_a_header_only)
{
	struct st_dump d = { .session = { .id = 3 } };

	EXPECT_STREQ(table(&d, ST_TABLE_SITES),
		"session_id,proc_id,pid,comm,addr,abi,nr,syscall,map,path,offset,"
		"calls,errors,total_ns,avg_ns,min_ns,max_ns,first_ns,first_ordinal,"
		"inode,dev,mtime_ns,errnos,errno_other\n");
}

/* The same cells in JSON: numbers stay numbers, hex is a string. */
TEST(json_values_of_cells)
{
	static const struct {
		struct st_cell c;
		const char *json;
	} cases[] = {
		{ { .kind = ST_NULL }, "null" },
		{ { .kind = ST_U64, .u = 42 }, "42" },
		{ { .kind = ST_S64, .u = (uint64_t)-7 }, "-7" },
		{ { .kind = ST_BOOL, .u = 1 }, "true" },
		{ { .kind = ST_HEX, .u = 0x7f0a }, "\"0x7f0a\"" },
		{ { .kind = ST_FIXED, .decimals = 3, .u = 12345 }, "12.345" },
		{ { .kind = ST_FIXED, .decimals = 2, .u = 5000 }, "50.0" },
		{ { .kind = ST_STR, .s = "x\"y" }, "\"x\\\"y\"" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = st_cell_json(&cases[i].c);
		char *text = json_dumps(j, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));

		EXPECT_STREQ(text, cases[i].json);
		free(text);
		json_decref(j);
	}
}
