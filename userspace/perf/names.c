// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/perf/names.c - perf's names of record types and features, as
 * perf report -D and perf report --header print them.
 */
#include "format.h"

const char *perf_record_name(uint32_t type)
{
	static const char * const names[] = {
		[PERF_RECORD_MMAP]		= "MMAP",
		[PERF_RECORD_LOST]		= "LOST",
		[PERF_RECORD_COMM]		= "COMM",
		[PERF_RECORD_EXIT]		= "EXIT",
		[PERF_RECORD_THROTTLE]		= "THROTTLE",
		[PERF_RECORD_UNTHROTTLE]	= "UNTHROTTLE",
		[PERF_RECORD_FORK]		= "FORK",
		[PERF_RECORD_READ]		= "READ",
		[PERF_RECORD_SAMPLE]		= "SAMPLE",
		[PERF_RECORD_MMAP2]		= "MMAP2",
		[PERF_RECORD_AUX]		= "AUX",
		[PERF_RECORD_ITRACE_START]	= "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES]	= "LOST_SAMPLES",
		[PERF_RECORD_SWITCH]		= "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE]	= "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES]	= "NAMESPACES",
		[PERF_RECORD_KSYMBOL]		= "KSYMBOL",
		[PERF_RECORD_BPF_EVENT]		= "BPF_EVENT",
		[PERF_RECORD_CGROUP]		= "CGROUP",
		[PERF_RECORD_TEXT_POKE]		= "TEXT_POKE",
		[PERF_RECORD_AUX_OUTPUT_HW_ID]	= "AUX_OUTPUT_HW_ID",
		[PERF_RECORD_HEADER_ATTR]	= "ATTR",
		[PERF_RECORD_HEADER_EVENT_TYPE]	= "EVENT_TYPE",
		[PERF_RECORD_HEADER_TRACING_DATA] = "TRACING_DATA",
		[PERF_RECORD_HEADER_BUILD_ID]	= "BUILD_ID",
		[PERF_RECORD_FINISHED_ROUND]	= "FINISHED_ROUND",
		[PERF_RECORD_ID_INDEX]		= "ID_INDEX",
		[PERF_RECORD_AUXTRACE_INFO]	= "AUXTRACE_INFO",
		[PERF_RECORD_AUXTRACE]		= "AUXTRACE",
		[PERF_RECORD_AUXTRACE_ERROR]	= "AUXTRACE_ERROR",
		[PERF_RECORD_THREAD_MAP]	= "THREAD_MAP",
		[PERF_RECORD_CPU_MAP]		= "CPU_MAP",
		[PERF_RECORD_STAT_CONFIG]	= "STAT_CONFIG",
		[PERF_RECORD_STAT]		= "STAT",
		[PERF_RECORD_STAT_ROUND]	= "STAT_ROUND",
		[PERF_RECORD_EVENT_UPDATE]	= "EVENT_UPDATE",
		[PERF_RECORD_TIME_CONV]		= "TIME_CONV",
		[PERF_RECORD_HEADER_FEATURE]	= "FEATURE",
		[PERF_RECORD_COMPRESSED]	= "COMPRESSED",
		[PERF_RECORD_FINISHED_INIT]	= "FINISHED_INIT",
		[PERF_RECORD_COMPRESSED2]	= "COMPRESSED2",
		[PERF_RECORD_BPF_METADATA]	= "BPF_METADATA",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

const char *perf_feature_name(unsigned int bit)
{
	static const char * const names[] = {
		[HEADER_TRACING_DATA]	= "tracing_data",
		[HEADER_BUILD_ID]	= "build_id",
		[HEADER_HOSTNAME]	= "hostname",
		[HEADER_OSRELEASE]	= "osrelease",
		[HEADER_VERSION]	= "version",
		[HEADER_ARCH]		= "arch",
		[HEADER_NRCPUS]		= "nrcpus",
		[HEADER_CPUDESC]	= "cpudesc",
		[HEADER_CPUID]		= "cpuid",
		[HEADER_TOTAL_MEM]	= "total_mem",
		[HEADER_CMDLINE]	= "cmdline",
		[HEADER_EVENT_DESC]	= "event_desc",
		[HEADER_CPU_TOPOLOGY]	= "cpu_topology",
		[HEADER_NUMA_TOPOLOGY]	= "numa_topology",
		[HEADER_BRANCH_STACK]	= "branch_stack",
		[HEADER_PMU_MAPPINGS]	= "pmu_mappings",
		[HEADER_GROUP_DESC]	= "group_desc",
		[HEADER_AUXTRACE]	= "auxtrace",
		[HEADER_STAT]		= "stat",
		[HEADER_CACHE]		= "cache",
		[HEADER_SAMPLE_TIME]	= "sample_time",
		[HEADER_MEM_TOPOLOGY]	= "mem_topology",
		[HEADER_CLOCKID]	= "clockid",
		[HEADER_DIR_FORMAT]	= "dir_format",
		[HEADER_BPF_PROG_INFO]	= "bpf_prog_info",
		[HEADER_BPF_BTF]	= "bpf_btf",
		[HEADER_COMPRESSED]	= "compressed",
		[HEADER_CPU_PMU_CAPS]	= "cpu_pmu_caps",
		[HEADER_CLOCK_DATA]	= "clock_data",
		[HEADER_HYBRID_TOPOLOGY] = "hybrid_topology",
		[HEADER_PMU_CAPS]	= "pmu_caps",
		[HEADER_CPU_DOMAIN_INFO] = "cpu_domain_info",
			[HEADER_MMAP3_STATUS]	= "mmap3_status",
	};

	return bit < sizeof(names) / sizeof(names[0]) ? names[bit] : NULL;
}
