package main

import (
	"bytes"
	"fmt"
	"path"

	"github.com/zk-claims/zk/probe"
	"github.com/zk-claims/zk/vault"
)

// probeEvidence is how zk run and zk attach record a zk probe result: when
// output is probe JSON (zk probe --format json), it returns the markdown to
// put in the evidence block, the table with its denominators and an embed
// of the chart, and writes the chart as a new SVG attachment of the note at
// notePath, in the folder Obsidian's attachmentFolderPath names, as
// zk-probe-ID.svg. It reports false, and writes nothing, for any other
// output. The markdown is plain; a caller putting it inside a callout
// prefixes each line with "> ".
func probeEvidence(v *vault.Vault, notePath, id string, output []byte) (string, bool, error) {
	res, ok := probe.Detect(output)
	if !ok {
		return "", false, nil
	}
	dir, err := v.AttachmentFolder(notePath)
	if err != nil {
		return "", true, err
	}
	var svg bytes.Buffer
	if err := probe.WriteSVG(&svg, res); err != nil {
		return "", true, err
	}
	chart := path.Join(dir, "zk-probe-"+id+".svg")
	if err := v.CreateFile(chart, svg.Bytes()); err != nil {
		return "", true, fmt.Errorf("probe chart: %w", err)
	}
	return probe.RenderMarkdown(res) + "\n![[" + chart + "]]\n", true, nil
}
