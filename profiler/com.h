// Hand-written declarations of the few COM types, GUIDs, vtable slots and
// slot function types of the CLR Profiling API (corprof.idl) and metadata
// API (cor.h) that vbench uses (the GUIDs' values are in com.c). Slots are
// indices into the interface's vtable, counting IUnknown's
// QueryInterface/AddRef/Release as 0/1/2. Only what we call is named.
#ifndef VB_COM_H
#define VB_COM_H

#include <stdint.h>

typedef int32_t HRESULT;
typedef uint32_t ULONG;
typedef int32_t BOOL;
typedef uint16_t WCHAR; // CoreCLR's WCHAR is UTF-16 on Linux too
typedef uintptr_t FunctionID, ObjectID, ClassID, ModuleID, AssemblyID, ThreadID, AppDomainID;
typedef uint32_t mdToken;
typedef uintptr_t HCORENUM; // a metadata enumeration's cursor (0: start)

#define S_OK ((HRESULT)0)
#define S_FALSE ((HRESULT)1)
#define E_FAIL ((HRESULT)0x80004005)
#define CORPROF_E_PROFILER_CANCEL_ACTIVATION ((HRESULT)0x80131375)
#define E_NOTIMPL ((HRESULT)0x80004001)
#define E_NOINTERFACE ((HRESULT)0x80004002)
#define E_INVALIDARG ((HRESULT)0x80070057)
#define CLASS_E_CLASSNOTAVAILABLE ((HRESULT)0x80040111)
#define CLASS_E_NOAGGREGATION ((HRESULT)0x80040110)
#define FAILED(hr) ((hr) < 0)

typedef struct {
	uint32_t d1;
	uint16_t d2, d3;
	uint8_t d4[8];
} GUID;

// COM object: a pointer to a vtable of function pointers.
typedef struct {
	void **vtbl;
} IUnknown;

// Call slot n of a COM interface pointer with the given function type.
#define VCALL(obj, n, type) ((type)(((IUnknown *)(obj))->vtbl[n]))

// The function types below are the slots' signatures, declared once: each
// VCALL names one. The object pointer comes first, as void *.

// IUnknown slots, first in every interface.
enum { UNK_QueryInterface = 0, UNK_AddRef = 1, UNK_Release = 2 };
typedef HRESULT (*QI_t)(void *, const GUID *, void **);
typedef ULONG (*Release_t)(void *);

// Event mask bits (COR_PRF_MONITOR).
#define COR_PRF_MONITOR_MODULE_LOADS 0x00000004u
#define COR_PRF_MONITOR_JIT_COMPILATION 0x00000020u
#define COR_PRF_MONITOR_CACHE_SEARCHES 0x00020000u
#define COR_PRF_MONITOR_EXCEPTIONS 0x00000040u
#define COR_PRF_MONITOR_THREADS 0x00000200u
#define COR_PRF_MONITOR_ENTERLEAVE 0x00001000u
#define COR_PRF_ENABLE_STACK_SNAPSHOT 0x10000000u
#define COR_PRF_DISABLE_ALL_NGEN_IMAGES 0x80000000u
#define COR_PRF_DISABLE_INLINING 0x00200000u
#define COR_PRF_MONITOR_OBJECT_ALLOCATED 0x00000100u
#define COR_PRF_MONITOR_SUSPENDS 0x00010000u
#define COR_PRF_ENABLE_OBJECT_ALLOCATED 0x00800000u
// SetEventMask2's high word (COR_PRF_HIGH_MONITOR).
#define COR_PRF_HIGH_BASIC_GC 0x00000010u
#define COR_PRF_HIGH_MONITOR_EVENT_PIPE 0x00000080u

// DoStackSnapshot flags (COR_PRF_SNAPSHOT_INFO).
#define COR_PRF_SNAPSHOT_REGISTER_CONTEXT 0x1u

// ICorProfilerInfo..Info10 vtable slots.
enum {
	INFO_GetClassFromObject = 3,
	INFO_GetFunctionFromIP = 7,
	INFO_IsArrayClass = 11,
	INFO_GetThreadInfo = 12,
	INFO_GetCurrentThreadID = 13,
	INFO_GetFunctionInfo = 15,
	INFO_SetEventMask = 16,
	INFO_GetTokenAndMetaDataFromFunction = 19,
	INFO_GetModuleInfo = 20,
	INFO_GetModuleMetaData = 21,
	INFO_GetILFunctionBody = 22,
	INFO_GetILFunctionBodyAllocator = 23,
	INFO_SetILFunctionBody = 24,
	INFO_GetAssemblyInfo = 26,
	INFO_DoStackSnapshot = 36,           // Info2
	INFO_GetFunctionInfo2 = 38,
	INFO_GetClassIDInfo2 = 41,
	INFO_RequestProfilerDetach = 58,     // Info3
	INFO_SetFunctionIDMapper2 = 59,
	INFO_SetEnterLeaveFunctionHooks3 = 61,
	INFO_GetRuntimeInformation = 67,
	INFO_EnumThreads = 71,               // Info4
	INFO_GetObjectSize2 = 80,
	INFO_SetEventMask2 = 82,             // Info5
	INFO_GetNativeCodeStartAddresses = 90, // Info9
	INFO_GetILToNativeMapping3 = 91,
	INFO_GetCodeInfo4 = 92,
	INFO_SuspendRuntime = 97,            // Info10
	INFO_ResumeRuntime = 98,
	INFO_GetEnvironmentVariable = 99,    // Info11
	INFO_EventPipeStartSession = 101,    // Info12
	INFO_EventPipeStopSession = 103,
};
typedef HRESULT (*GetClassFromObject_t)(void *, ObjectID, ClassID *);
typedef HRESULT (*IsArrayClass_t)(void *, ClassID, uint32_t *, ClassID *, ULONG *);
typedef HRESULT (*GetObjectSize2_t)(void *, ObjectID, size_t *);
typedef struct {
	const WCHAR *provider;
	uint64_t keywords;
	uint32_t level;
	const WCHAR *filter;
} COR_PRF_EVENTPIPE_PROVIDER_CONFIG;
typedef HRESULT (*EventPipeStartSession_t)(void *, uint32_t, COR_PRF_EVENTPIPE_PROVIDER_CONFIG *, BOOL, uint64_t *);
typedef HRESULT (*EventPipeStopSession_t)(void *, uint64_t);
typedef HRESULT (*RequestProfilerDetach_t)(void *, uint32_t);
typedef HRESULT (*GetEnvironmentVariable_t)(void *, const WCHAR *, ULONG, ULONG *, WCHAR *);
typedef HRESULT (*GetFunctionFromIP_t)(void *, const uint8_t *, FunctionID *);
typedef HRESULT (*GetThreadInfo_t)(void *, ThreadID, uint32_t *);
typedef HRESULT (*GetFunctionInfo_t)(void *, FunctionID, ClassID *, ModuleID *, mdToken *);
typedef HRESULT (*GetTokenAndMetaData_t)(void *, FunctionID, const GUID *, IUnknown **, mdToken *);
typedef HRESULT (*GetModuleInfo_t)(void *, ModuleID, const uint8_t **, ULONG, ULONG *, WCHAR *, AssemblyID *);
typedef HRESULT (*GetModuleMetaData_t)(void *, ModuleID, uint32_t, const GUID *, IUnknown **);
typedef HRESULT (*GetILFunctionBody_t)(void *, ModuleID, mdToken, const uint8_t **, ULONG *);
typedef HRESULT (*GetILFunctionBodyAllocator_t)(void *, ModuleID, IUnknown **);
typedef HRESULT (*SetILFunctionBody_t)(void *, ModuleID, mdToken, const uint8_t *);
typedef HRESULT (*GetAssemblyInfo_t)(void *, AssemblyID, ULONG, ULONG *, WCHAR *, AppDomainID *, ModuleID *);
typedef HRESULT (*Snapshot_t)(void *, ThreadID, void *, uint32_t, void *, uint8_t *, uint32_t); // DoStackSnapshot
typedef HRESULT (*GetFunctionInfo2_t)(void *, FunctionID, uintptr_t, ClassID *, ModuleID *, mdToken *, uint32_t, uint32_t *, ClassID *);
typedef HRESULT (*GetClassIDInfo2_t)(void *, ClassID, ModuleID *, mdToken *, ClassID *, uint32_t, uint32_t *, ClassID *);
typedef HRESULT (*SetMapper2_t)(void *, void *, void *);   // SetFunctionIDMapper2
typedef HRESULT (*SetHooks3_t)(void *, void *, void *, void *); // SetEnterLeaveFunctionHooks3
typedef HRESULT (*GetRuntimeInformation_t)(void *, uint16_t *, int *, uint16_t *, uint16_t *, uint16_t *, uint16_t *, ULONG, ULONG *, WCHAR *);
typedef HRESULT (*EnumThreads_t)(void *, IUnknown **);
typedef HRESULT (*SetEventMask2_t)(void *, uint32_t, uint32_t);
typedef HRESULT (*Suspend_t)(void *); // SuspendRuntime, ResumeRuntime
typedef HRESULT (*GetNativeCodeStartAddresses_t)(void *, FunctionID, uintptr_t, uint32_t, uint32_t *, uintptr_t *);
typedef struct { uintptr_t start; size_t size; } COR_PRF_CODE_INFO;
typedef HRESULT (*GetCodeInfo4_t)(void *, uintptr_t, uint32_t, uint32_t *, COR_PRF_CODE_INFO *);
// COR_DEBUG_IL_TO_NATIVE_MAP: ilOffset may be NO_MAPPING (-1), PROLOG (-2), EPILOG (-3).
typedef struct { uint32_t ilOffset, nativeStartOffset, nativeEndOffset; } COR_DEBUG_IL_TO_NATIVE_MAP;
typedef HRESULT (*GetILToNativeMapping3_t)(void *, uintptr_t, uint32_t, uint32_t *, COR_DEBUG_IL_TO_NATIVE_MAP *);

// ICorProfilerThreadEnum slots.
enum { TENUM_Next = 7 };
typedef HRESULT (*Next_t)(void *, ULONG, ThreadID *, ULONG *);

// IMetaDataImport / IMetaDataImport2 slots.
enum {
	MD_CloseEnum = 3,
	MD_EnumTypeRefs = 8,
	MD_EnumMethods = 18,
	MD_FindTypeDefByName = 9,
	MD_GetTypeDefProps = 12,
	MD_GetTypeRefProps = 14,
	MD_FindMethod = 27,
	MD_GetMethodProps = 30,
	MD_GetMemberRefProps = 31,
	MD_GetSigFromToken = 41,
	MD_GetTypeSpecFromToken = 44,
	MD_GetNestedClassProps = 62,
	MD_EnumGenericParams = 65,     // IMetaDataImport2
	MD_GetGenericParamProps = 66,
	MD_GetMethodSpecProps = 67,
};
typedef void (*CloseEnum_t)(void *, HCORENUM);
typedef HRESULT (*EnumTypeRefs_t)(void *, HCORENUM *, mdToken *, ULONG, ULONG *);
typedef HRESULT (*EnumMethods_t)(void *, HCORENUM *, mdToken, mdToken *, ULONG, ULONG *);
typedef HRESULT (*FindTypeDefByName_t)(void *, const WCHAR *, mdToken, mdToken *);
typedef HRESULT (*GetTypeDefProps_t)(void *, mdToken, WCHAR *, ULONG, ULONG *, uint32_t *, mdToken *);
typedef HRESULT (*GetTypeRefProps_t)(void *, mdToken, mdToken *, WCHAR *, ULONG, ULONG *);
typedef HRESULT (*FindMethod_t)(void *, mdToken, const WCHAR *, const uint8_t *, ULONG, mdToken *);
typedef HRESULT (*GetMethodProps_t)(void *, mdToken, mdToken *, WCHAR *, ULONG, ULONG *, uint32_t *, const uint8_t **, ULONG *, ULONG *, uint32_t *);
typedef HRESULT (*GetMemberRefProps_t)(void *, mdToken, mdToken *, WCHAR *, ULONG, ULONG *, const uint8_t **, ULONG *);
typedef HRESULT (*GetSigFromToken_t)(void *, mdToken, const uint8_t **, ULONG *);
typedef HRESULT (*GetTypeSpecFromToken_t)(void *, mdToken, const uint8_t **, ULONG *);
typedef HRESULT (*GetNestedClassProps_t)(void *, mdToken, mdToken *);
typedef HRESULT (*EnumGenericParams_t)(void *, HCORENUM *, mdToken, mdToken *, ULONG, ULONG *);
typedef HRESULT (*GetGenericParamProps_t)(void *, mdToken, ULONG *, uint32_t *, mdToken *, uint32_t *, WCHAR *, ULONG, ULONG *);
typedef HRESULT (*GetMethodSpecProps_t)(void *, mdToken, mdToken *, const uint8_t **, ULONG *);

// IMetaDataEmit slots.
enum {
	MDE_DefineTypeRefByName = 12,
	MDE_GetTokenFromSig = 23,
};
typedef HRESULT (*DefineTypeRefByName_t)(void *, mdToken, const WCHAR *, mdToken *);
typedef HRESULT (*GetTokenFromSig_t)(void *, const uint8_t *, ULONG, mdToken *);

// IMethodMalloc slots.
enum { MALLOC_Alloc = 3 };
typedef void *(*Alloc_t)(void *, ULONG);

// CorOpenFlags for GetModuleMetaData.
#define ofRead 0x0u
#define ofWrite 0x1u

// ICorProfilerCallback..Callback3 vtable slots (80 + IUnknown's 3).
enum {
	CB_Initialize = 3,
	CB_Shutdown = 4,
	CB_ModuleUnloadStarted = 15,
	CB_JITCompilationStarted = 23,
	CB_JITCompilationFinished = 24,
	CB_JITCachedFunctionSearchStarted = 25,
	CB_JITInlining = 28,
	CB_ThreadCreated = 29,
	CB_ThreadDestroyed = 30,
	CB_ThreadAssignedToOSThread = 31,
	CB_RuntimeSuspendStarted = 42,
	CB_RuntimeResumeFinished = 46,
	CB_ObjectAllocated = 50,
	CB_ExceptionThrown = 54,
	CB_ExceptionSearchCatcherFound = 59,
	CB_ExceptionUnwindFunctionEnter = 62,
	CB_ExceptionUnwindFunctionLeave = 63,
	CB_GarbageCollectionStarted = 73,    // Callback2
	CB_InitializeForAttach = 80,         // Callback3
	CB_ProfilerAttachComplete = 81,
	CB_ProfilerDetachSucceeded = 82,
	CB_EventPipeEventDelivered = 95,     // Callback10 (Callback4..9: 83..94)
	CB_SLOTS = 97, // through ICorProfilerCallback10::EventPipeProviderCreated
};

extern const GUID IID_IUnknown_, IID_IClassFactory_, IID_ICorProfilerCallback_,
	IID_ICorProfilerCallback2_, IID_ICorProfilerCallback3_, IID_ICorProfilerCallback10_, IID_ICorProfilerInfo10_,
	IID_ICorProfilerInfo12_,
	IID_IMetaDataImport2_, IID_IMetaDataEmit_;

int guid_eq(const GUID *a, const GUID *b);

#endif
