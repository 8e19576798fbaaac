package main

import (
	"fmt"
	"io"

	"github.com/normtop/normtop/datasets"
	"github.com/normtop/normtop/train"
)

// scalePaper is --scale paper: the word LM at the PowerNorm authors' size
// (train.PaperConfig), for `normtop train` and `normtop findings`.
const scalePaper = "paper"

// checkScale accepts --scale "" or paper; paper is a size of the word-level
// Transformer language model only.
func checkScale(scale string, model train.ModelKind, data string) error {
	switch {
	case scale == "":
		return nil
	case scale != scalePaper:
		return fmt.Errorf("--scale %q: the only scale is paper (the PowerNorm authors' d 512, 6 blocks)", scale)
	case model != "" && model != train.ModelTransformer:
		return fmt.Errorf("--scale paper: a size of the transformer language model, not of model %s", model)
	case data != "" && datasets.WordSet(data) == "":
		return fmt.Errorf("--scale paper: a size of the word-level language model; --data %s is not word-level data (sotu, moby-dick, words:FILE)", data)
	}
	return nil
}

// announceScale prints a preset's estimated memory and CPU time before its
// data is loaded, and refuses it (train.ErrTooLarge, a usage error) when it
// would not fit the memory available now.
func announceScale(w io.Writer, scale string, c train.Config) error {
	if scale == "" {
		return nil
	}
	est, err := train.EstimateRun(c)
	if err != nil {
		return loadError(err)
	}
	fmt.Fprintf(w, "normtop: --scale %s: %s, estimated before the data is loaded\n", scale, est)
	if err := est.CheckFits(); err != nil {
		return loadError(err)
	}
	return nil
}
