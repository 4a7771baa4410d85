// Embeds k8s-api.table in the binary as respool_k8s_api_table .. respool_k8s_api_table_end.
// The assembler includes the file (no megabyte-long C++ literal to compile); CMake passes its
// path, and its SHA-256 so that a changed table is a changed compile command (ccache).

#ifndef RESPOOL_K8S_API_TABLE
#error "RESPOOL_K8S_API_TABLE (the path of k8s-api.table) must be defined"
#endif
#ifndef RESPOOL_K8S_API_TABLE_SHA256
#error "RESPOOL_K8S_API_TABLE_SHA256 must be defined"
#endif

__asm__(
    ".section .rodata\n"
    ".global respool_k8s_api_table\n"
    ".global respool_k8s_api_table_end\n"
    "respool_k8s_api_table:\n"
    ".incbin \"" RESPOOL_K8S_API_TABLE
    "\"\n"
    "respool_k8s_api_table_end:\n"
    ".byte 0\n"
    ".previous\n");
