package norm

import (
	"fmt"

	"github.com/normtop/normtop/internal/graphop"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The gorgonia side: three graphop descriptions around the kernels.
// gorgonia differentiates symbolically, so the forward op's gradient is a
// separate backward op that computes dx and, in the same pass, dγ and dβ
// (kept in the instance); two small read ops hand dγ and dβ to the graph.
// They take the dx node as input so that the tape runs them after it.

// Apply adds the layer to x's graph. x is an [N, D] matrix node. For variants
// with γ/β it creates input nodes in x's graph bound to the layer's own γ/β
// tensors and returns them as params, so Apply can be called on a training
// graph and on a forward-only eval graph sharing the weights. The forward op
// updates running state only in training mode; its backward op fills the
// Grad taps and (PowerNorm) updates ν only in training mode.
func (l *Layer) Apply(x *gorgonia.Node) (y *gorgonia.Node, params []*gorgonia.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			y, params, err = nil, nil, fmt.Errorf("norm: %s: building the op: %v", l.label(), r)
		}
	}()
	if x == nil {
		return nil, nil, fmt.Errorf("norm: %s: Apply: nil input node", l.label())
	}
	if x.Dims() != 2 || x.Shape()[1] != l.d {
		return nil, nil, fmt.Errorf("norm: %s: Apply: input shape %v, want [N, %d]", l.label(), x.Shape(), l.d)
	}
	if x.Dtype() != l.site.Dtype {
		return nil, nil, fmt.Errorf("norm: %s: Apply: input dtype %v, layer dtype %v", l.label(), x.Dtype(), l.site.Dtype)
	}
	in := l.newInstance()
	children := []*gorgonia.Node{x}
	if l.cfg.Kind.HasAffine() {
		g := x.Graph()
		base := fmt.Sprintf("%s#%d", l.site.Name, l.id)
		gam := gorgonia.NewVector(g, l.site.Dtype, gorgonia.WithShape(l.d), gorgonia.WithValue(l.gamma), gorgonia.WithName(base+".gamma"))
		bet := gorgonia.NewVector(g, l.site.Dtype, gorgonia.WithShape(l.d), gorgonia.WithValue(l.beta), gorgonia.WithName(base+".beta"))
		params = []*gorgonia.Node{gam, bet}
		children = append(children, gam, bet)
	}
	y, err = graphop.Op{Kind: in.kind(""), Out: x.Shape().Clone(), Grad: in.grad,
		F32: fwdKernel[float32](in), F64: fwdKernel[float64](in)}.Apply(children...)
	if err != nil {
		return nil, nil, fmt.Errorf("norm: %s: Apply: %w", l.label(), err)
	}
	return y, params, nil
}

// kind names one of the instance's ops: "norm.layernorm", then what it
// computes after a dot; graphop makes every node's name unique.
func (in *instance) kind(what string) string {
	if what == "" {
		return "norm." + in.l.cfg.Name()
	}
	return "norm." + in.l.cfg.Name() + "." + what
}

// fwdKernel is y = norm(x[, γ, β]) on the inputs (x[, γ, β]).
func fwdKernel[T float](in *instance) graphop.Kernel[T] {
	return func(y []T, args [][]T) error {
		var gam, bet []T
		if len(args) == 3 {
			gam, bet = args[1], args[2]
		}
		return forward(in, args[0], gam, bet, y, len(y)/in.l.d)
	}
}

// grad is dx from the backward op on (x[, γ], g), and dγ, dβ read from
// the instance after it.
func (in *instance) grad(inputs gorgonia.Nodes, g *gorgonia.Node) (gorgonia.Nodes, error) {
	args := gorgonia.Nodes{inputs[0]}
	if len(inputs) == 3 {
		args = append(args, inputs[1])
	}
	dx, err := graphop.Op{Kind: in.kind("dx"), Out: inputs[0].Shape().Clone(),
		F32: bwdKernel[float32](in), F64: bwdKernel[float64](in)}.Apply(append(args, g)...)
	if err != nil {
		return nil, err
	}
	if len(inputs) == 1 {
		return gorgonia.Nodes{dx}, nil
	}
	dg, err := graphop.Op{Kind: in.kind("dgamma"), Out: tensor.Shape{in.l.d},
		F32: readKernel[float32](in, &in.dgamma), F64: readKernel[float64](in, &in.dgamma)}.Apply(dx)
	if err != nil {
		return nil, err
	}
	db, err := graphop.Op{Kind: in.kind("dbeta"), Out: tensor.Shape{in.l.d},
		F32: readKernel[float32](in, &in.dbeta), F64: readKernel[float64](in, &in.dbeta)}.Apply(dx)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx, dg, db}, nil
}

// bwdKernel is dx on the inputs (x[, γ], g); it keeps dγ and dβ in the
// instance.
func bwdKernel[T float](in *instance) graphop.Kernel[T] {
	return func(dx []T, args [][]T) error {
		var gam []T
		if len(args) == 3 {
			gam = args[1]
		}
		return backward(in, args[0], gam, args[len(args)-1], dx, len(dx)/in.l.d)
	}
}

// readKernel hands out the parameter gradient *src (dγ or dβ) that the
// backward op whose output is its input computed.
func readKernel[T float](in *instance, src *[]float64) graphop.Kernel[T] {
	return func(out []T, _ [][]T) error {
		if len(*src) != len(out) {
			return fmt.Errorf("norm: %s: parameter gradient read before the backward pass", in.l.label())
		}
		for k, v := range *src {
			out[k] = T(v)
		}
		return nil
	}
}
