package host

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// XidInfo describes one NVIDIA Xid code.
type XidInfo struct {
	Code     int              `json:"code"`
	Name     string           `json:"name"`
	Meaning  string           `json:"meaning"`
	Severity finding.Severity `json:"severity"`
	// FatalCritical: the message says whether the error was "Fatal" or
	// "Nonfatal"; a fatal one is critical whatever Severity says.
	FatalCritical bool `json:"fatal_critical,omitempty"`
}

// xids is the meaning/severity table (NVIDIA Xid catalog,
// docs.nvidia.com/deploy/xid-errors, and open-gpu-kernel-modules
// nverror.h), the one place an Xid's severity is decided. Events that need
// a GPU reset or node drain are critical. An application fault after which
// the driver stopped the process's channel (13, 31, 43: the catalog's
// immediate action is RESTART_APP) is a warning: a job died, even when the
// GPU itself stays usable. Cleanup after a killed process (45) and handled
// memory events (63, 92) are info.
var xids = []XidInfo{
	{13, "ROBUST_CHANNEL_GR_EXCEPTION", "graphics engine exception: the process on the GPU was stopped, usually by its own fault (the GPU stays usable); check the job, and the GPU if it repeats under other jobs", finding.Warning, false},
	{31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "GPU memory page fault (illegal address): the process on the GPU was killed, usually by its own bug (the GPU stays usable); check the job, and the GPU if it repeats under other jobs", finding.Warning, false},
	{32, "ROBUST_CHANNEL_PBDMA_ERROR", "invalid or corrupted push buffer, often PCIe signal quality", finding.Warning, false},
	{43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "GPU stopped the process on an application fault and it had to end; the GPU is healthy", finding.Warning, false},
	{45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "preemptive cleanup after a killed process or another error", finding.Info, false},
	{46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "GPU stopped processing; reset the GPU", finding.Critical, false},
	{48, "ROBUST_CHANNEL_GPU_ECC_DBE", "uncorrectable (double-bit) ECC error; reset or reboot, check retirement thresholds", finding.Critical, false},
	{61, "PMU_BREAKPOINT", "internal micro-controller breakpoint", finding.Warning, false},
	{62, "PMU_HALT_ERROR", "internal micro-controller halt; reset the GPU", finding.Critical, false},
	{63, "INFOROM_DRAM_RETIREMENT_EVENT", "row remap / page retirement recorded; reset the GPU to activate it", finding.Info, false},
	{64, "INFOROM_DRAM_RETIREMENT_FAILURE", "row remap / page retirement failed; reset the GPU", finding.Critical, false},
	{69, "ROBUST_CHANNEL_GR_CLASS_ERROR", "graphics engine class error (a driver or hardware fault); reset the GPU if it repeats", finding.Warning, false},
	{74, "NVLINK_ERROR", "NVLink error; reset or reboot, check nvidia-smi nvlink", finding.Critical, false},
	{79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "GPU inaccessible over PCIe", finding.Critical, false},
	{92, "EXCESSIVE_SBE_INTERRUPTS", "high single-bit ECC error rate; monitor", finding.Info, false},
	{94, "ROBUST_CHANNEL_CONTAINED_ERROR", "contained memory error; restart the application, reset the GPU when convenient", finding.Warning, false},
	{95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", "uncontained memory error affecting several applications; reset the GPU", finding.Critical, false},
	{109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "context switch timeout; reset the GPU", finding.Critical, false},
	{110, "SEC_FAULT_ERROR", "security fault, likely hardware; reset the GPU", finding.Critical, false},
	{119, "GSP_RPC_TIMEOUT", "GSP firmware RPC timeout; reset the GPU, power-cycle if it persists", finding.Critical, false},
	{120, "GSP_ERROR", "GSP firmware error; reset the GPU", finding.Critical, false},
	{121, "C2C_ERROR", "corrected C2C NVLink errors to the Grace CPU", finding.Warning, false},
	{136, "ALI_TRAINING_FAIL", "NVLink link training failed; reset the GPU", finding.Critical, false},
	{137, "NVLINK_PRIV_ERR", "illegal NVLink peer access, usually an application bug", finding.Warning, false},
	{140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "uncorrectable ECC error escaped remapping; reset the GPU", finding.Critical, false},
	{143, "GPU_INIT_ERROR", "GPU initialisation error; reset the GPU", finding.Critical, false},
	// NVLink 5 (Blackwell, GB200) unit errors: the message names the unit
	// and says Fatal (the link is down: reset the GPU) or Nonfatal.
	{144, "NVLINK_SAW_ERROR", "NVLink SAW unit error; a Fatal one needs a GPU reset", finding.Warning, true},
	{145, "NVLINK_RLW_ERROR", "NVLink RLW unit error; a Fatal one needs a GPU reset", finding.Warning, true},
	{146, "NVLINK_TLW_ERROR", "NVLink TLW unit error; a Fatal one needs a GPU reset", finding.Warning, true},
	{147, "NVLINK_TREX_ERROR", "NVLink TREX unit error; a Fatal one needs a GPU reset", finding.Warning, true},
	{148, "NVLINK_NVLPW_CTRL_ERROR", "NVLink NVLPW controller error; a Fatal one needs a GPU reset", finding.Warning, true},
	{149, "NVLINK_NETIR_ERROR", "NVLink NETIR (network interface) error; a Fatal one needs a GPU reset", finding.Warning, true},
	{150, "NVLINK_MSE_ERROR", "NVLink MSE unit error; a Fatal one needs a GPU reset", finding.Warning, true},
	{154, "GPU_RECOVERY_ACTION_CHANGED", "the driver changed the GPU's required recovery action (see the message)", finding.Critical, false},
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
