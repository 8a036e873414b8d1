package host

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// XidInfo describes one NVIDIA Xid code.
type XidInfo struct {
	Code     int              `json:"code"`
	Name     string           `json:"name"`
	Meaning  string           `json:"meaning"`
	Severity finding.Severity `json:"severity"`
}

// xids is the meaning/severity table (NVIDIA Xid catalog,
// docs.nvidia.com/deploy/xid-errors, and open-gpu-kernel-modules
// nverror.h). Application faults and handled events are info; events that
// need a GPU reset or node drain are critical.
var xids = []XidInfo{
	{13, "ROBUST_CHANNEL_GR_EXCEPTION", "graphics engine exception, usually an application fault", finding.Info},
	{31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "GPU memory page fault (illegal address), usually an application fault", finding.Info},
	{32, "ROBUST_CHANNEL_PBDMA_ERROR", "invalid or corrupted push buffer, often PCIe signal quality", finding.Warning},
	{43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "GPU stopped processing on an application fault; the GPU is healthy", finding.Info},
	{45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "preemptive cleanup after a killed process or another error", finding.Info},
	{46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "GPU stopped processing; reset the GPU", finding.Critical},
	{48, "ROBUST_CHANNEL_GPU_ECC_DBE", "uncorrectable (double-bit) ECC error; reset or reboot, check retirement thresholds", finding.Critical},
	{61, "PMU_BREAKPOINT", "internal micro-controller breakpoint", finding.Warning},
	{62, "PMU_HALT_ERROR", "internal micro-controller halt; reset the GPU", finding.Critical},
	{63, "INFOROM_DRAM_RETIREMENT_EVENT", "row remap / page retirement recorded; reset the GPU to activate it", finding.Info},
	{64, "INFOROM_DRAM_RETIREMENT_FAILURE", "row remap / page retirement failed; reset the GPU", finding.Critical},
	{74, "NVLINK_ERROR", "NVLink error; reset or reboot, check nvidia-smi nvlink", finding.Critical},
	{79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "GPU inaccessible over PCIe", finding.Critical},
	{92, "EXCESSIVE_SBE_INTERRUPTS", "high single-bit ECC error rate; monitor", finding.Info},
	{94, "ROBUST_CHANNEL_CONTAINED_ERROR", "contained memory error; restart the application, reset the GPU when convenient", finding.Warning},
	{95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", "uncontained memory error affecting several applications; reset the GPU", finding.Critical},
	{109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "context switch timeout; reset the GPU", finding.Critical},
	{110, "SEC_FAULT_ERROR", "security fault, likely hardware; reset the GPU", finding.Critical},
	{119, "GSP_RPC_TIMEOUT", "GSP firmware RPC timeout; reset the GPU, power-cycle if it persists", finding.Critical},
	{120, "GSP_ERROR", "GSP firmware error; reset the GPU", finding.Critical},
	{121, "C2C_ERROR", "corrected C2C NVLink errors to the Grace CPU", finding.Warning},
	{136, "ALI_TRAINING_FAIL", "NVLink link training failed; reset the GPU", finding.Critical},
	{137, "NVLINK_PRIV_ERR", "illegal NVLink peer access, usually an application bug", finding.Warning},
	{140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "uncorrectable ECC error escaped remapping; reset the GPU", finding.Critical},
	{143, "GPU_INIT_ERROR", "GPU initialisation error; reset the GPU", finding.Critical},
	{154, "GPU_RECOVERY_ACTION_CHANGED", "the driver changed the GPU's required recovery action (see the message)", finding.Critical},
}

// LookupXid returns the table entry of a code; unknown codes are warnings.
func LookupXid(code int) XidInfo {
	for _, x := range xids {
		if x.Code == code {
			return x
		}
	}
	return XidInfo{Code: code, Name: "unknown", Meaning: "see the NVIDIA Xid catalog", Severity: finding.Warning}
}
