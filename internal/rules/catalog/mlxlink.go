package catalog

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// mlxlinkMetas are the port findings only mlxlink's physical-layer pages
// show: the pre-FEC error rate, the firmware's own troubleshooting verdict
// and the module's alarm thresholds.
var mlxlinkMetas = []finding.Meta{
	{
		ID: "port.raw_ber_high", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title: "pre-FEC (raw) bit error rate high",
		Meaning: "mlxlink -c shows a Raw Physical BER above 1e-5 on a link that runs FEC. FEC still corrects the errors (the Effective Physical BER, after FEC, is judged by port.symbol_errors), " +
			"but the margin is thin: RS-FEC (544,514), the FEC of 50G and 100G PAM4 lanes (HDR, NDR, 200GbE and up), is designed to hold the post-FEC rate at a raw BER of about 2.4e-4 (IEEE 802.3 Clause 91/119), " +
			"and NVIDIA's Quantum firmware release notes already call a raw BER of 1e-6 unclean. A raw BER that grows ends in uncorrectable errors and link retraining.",
		Causes: []string{causeCable, "dirty or damaged fibre connector, or a transceiver near its end of life", "module overheating (see Module Info temperature)"},
		Remedy: []string{"mlxlink -d <pci> -c again after some minutes: a raw BER that grows is a failing link", "mlxlink -d <pci> -m to read the module's temperature and per-lane power", remedyReseat},
	},
	{
		ID: "port.link_troubleshooting", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title: "mlxlink's troubleshooting page names a link problem",
		Meaning: "The firmware's link monitor (mlxlink Troubleshooting Info: Status Opcode, Recommendation) reports a problem other than \"No issue was observed\": " +
			"the port closed by command (1), auto-negotiation or link-training failures (2-8), a speed or FEC mismatch with the peer (9-13), a remote fault (14), bad signal integrity, that is a low raw BER on an up link (15), a cable that does not match the port, an unplugged cable (opcodes as NVIDIA's MLNX-OS User Manual lists them, \"Link Diagnostic Per Port\"). Its Recommendation line is the firmware's own advice.",
		Causes: []string{"cable unplugged, unsupported or faulty", "speed, FEC or auto-negotiation configured differently at the two ends", "module power or temperature limits"},
		Remedy: []string{"follow the Recommendation line of mlxlink -d <pci>", "mlxlink -d <pci> -m to read the module", remedyReseat, "check the peer port's speed and FEC configuration"},
	},
	{
		ID: "port.module_alarm", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title: "cable module reading outside its alarm thresholds",
		Meaning: "mlxlink -m prints each module reading with its alarm thresholds (\"45 [-5..75]\"); a temperature, voltage, bias current or per-lane Rx/Tx power outside that range " +
			"means the transceiver is overheating, underpowered, or receiving too little light (a dirty or broken fibre, or a failing laser at the other end).",
		Causes: []string{"transceiver overheating (airflow, dust, a module above the port's power class)", "dirty, bent or broken fibre; failing laser at the peer", "failing transceiver"},
		Remedy: []string{"mlxlink -d <pci> -m to read the module again", "clean the fibre ends and reseat the transceiver; swap it with a known-good one", "check airflow and fan status"},
	},
}
