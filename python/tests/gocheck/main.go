package main

import (
	"encoding/json"
	"fmt"
	"github.com/normtop/normtop/normspec"
	"math"
	"os"

	"github.com/normtop/normtop/norm"
	"github.com/normtop/normtop/probes"
	"gorgonia.org/tensor"
)

type input struct {
	Spec  string      `json:"spec"`  // e.g. "batchnorm:momentum=0.1"
	Dtype string      `json:"dtype"` // float32 | float64: how γ/β are stored
	D     int         `json:"d"`
	Gamma []float64   `json:"gamma"`
	Beta  []float64   `json:"beta"`
	Steps []stepInput `json:"steps"`
	// The site's unit fields (norm.Site): rows per sample and whether they
	// are an image's positions; 0/false for a site of independent rows.
	SampleRows int  `json:"sample_rows"`
	Spatial    bool `json:"spatial"`
}

type stepInput struct {
	X    []float64 `json:"x"`
	G    []float64 `json:"g"`
	Mask []bool    `json:"mask"`
	Eval bool      `json:"eval"` // an inference step (running statistics, no update)
}

type stepOutput struct {
	Probes map[string]*float64 `json:"probes"`
	Y      []float64           `json:"y"`
	Dx     []float64           `json:"dx"`
	Dgamma []float64           `json:"dgamma"`
	Dbeta  []float64           `json:"dbeta"`
	State  norm.State          `json:"state"` // after the step
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gocheck:", err)
		os.Exit(1)
	}
}

func run() error {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		return fmt.Errorf("reading the input: %v", err)
	}
	cfg, err := normspec.Parse(in.Spec)
	if err != nil {
		return err
	}
	dt := tensor.Float64
	if in.Dtype == "float32" {
		dt = tensor.Float32
	}
	l, err := norm.NewLayer(cfg, norm.Site{Name: "site", D: in.D, Heads: 1, Dtype: dt,
		SampleRows: in.SampleRows, Spatial: in.Spatial})
	if err != nil {
		return err
	}
	if gam, bet := l.Params(); gam != nil {
		setParam(gam, in.Gamma)
		setParam(bet, in.Beta)
	}
	c := probes.NewCollector(0, []string{"site"}, probes.Intervals{Stats: 1, Grad: 1, Params: 1})
	var out []stepOutput
	for i, s := range in.Steps {
		n := len(s.X) / in.D
		l.SetMask(s.Mask)
		l.SetTraining(!s.Eval)
		y := make([]float64, len(s.X))
		if err := l.Forward64(s.X, n, y); err != nil {
			return fmt.Errorf("step %d: %v", i+1, err)
		}
		dx := make([]float64, len(s.X))
		dg, db := make([]float64, in.D), make([]float64, in.D)
		if err := l.Backward64(s.X, s.G, n, dx, dg, db); err != nil {
			return fmt.Errorf("step %d: %v", i+1, err)
		}
		t := l.Taps()
		d := c.Step(probes.TrainStep{Step: i + 1, Taps: []*normspec.Taps{t}, GradsFinite: true})
		f := c.Seal(&d, probes.Running, 0)
		o := stepOutput{Probes: map[string]*float64{}, Y: y, Dx: dx, State: l.State()}
		if gam, _ := l.Params(); gam != nil {
			o.Dgamma, o.Dbeta = dg, db
		}
		for p := probes.Probe(0); p < probes.NumProbes; p++ {
			o.Probes[p.String()] = jnum(f.Layers[0][p])
		}
		out = append(out, o)
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"steps": out})
}

func setParam(t *tensor.Dense, v []float64) {
	switch d := t.Data().(type) {
	case []float64:
		copy(d, v)
	case []float32:
		for i := range d {
			d[i] = float32(v[i])
		}
	}
}

// jnum is v for JSON: nil (null) for NaN, which JSON cannot carry.
func jnum(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
