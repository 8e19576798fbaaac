package train

import (
	"strings"

	"github.com/normtop/normtop/normspec"
)

// ModelKind names a model normtop trains (Config.Model, --model). Its
// methods answer what the trainer, the data loader, the validation and cmd
// ask of it, so that no one switches on the name.
type ModelKind string

// The models.
const (
	ModelMLP         ModelKind = "mlp"
	ModelCNN         ModelKind = "cnn"
	ModelResNet      ModelKind = "resnet"
	ModelTransformer ModelKind = "transformer"
	ModelClassifier  ModelKind = "classifier"
	ModelLSTM        ModelKind = "lstm"
)

// OnImages reports whether the model trains on MNIST images (mlp, cnn,
// resnet).
func (k ModelKind) OnImages() bool { return k == ModelMLP || k == ModelCNN || k == ModelResNet }

// ImageSites reports whether the model's norm sites are image sites
// ([B·H·W, C] rows, one channel per feature) rather than one row per
// example or token.
func (k ModelKind) ImageSites() bool { return k == ModelResNet }

// OnTokens reports whether the model trains on tokens (transformer and
// lstm: language models; classifier: documents to classes), whose sizes
// are Config's Layers, DModel, SeqLen and (the Transformers) Heads.
func (k ModelKind) OnTokens() bool {
	return k == ModelTransformer || k == ModelClassifier || k == ModelLSTM
}

// Recurrent reports whether the model is the LSTM: no attention heads, a
// sequence cap of MaxLSTMSeq, and only per-row norm variants.
func (k ModelKind) Recurrent() bool { return k == ModelLSTM }

// Valid reports whether k names a model.
func (k ModelKind) Valid() bool { return k.OnImages() || k.OnTokens() }

// Trains reports whether the model trains variant v. On image sites a row
// is one pixel's C channels, so the per-row family (LayerNorm, its
// detached and adaptive forms, RMSNorm) would normalise each pixel over
// its channels: not the LayerNorm of its papers, which normalises a
// sample's hidden units (C·H·W for a convolution's output). Those are
// refused there; the per-feature norms (statistics per channel over
// B·H·W) and none are what the model is for.
func (k ModelKind) Trains(v normspec.Kind) bool { return !k.ImageSites() || !v.RowFamily() }

// variantsOn lists, comma-separated, the variants the model trains.
func (k ModelKind) variantsOn() string {
	var names []string
	for _, v := range normspec.Variants() {
		if c, err := normspec.Parse(v.Name); err == nil && k.Trains(c.Kind) {
			names = append(names, v.Name)
		}
	}
	return strings.Join(names, ", ")
}

// maxEvalBatch bounds the images of one eval batch: the eval graph keeps
// every activation of its batch, about 1 MB an image in the resnet (every
// convolution's patches and its norm's layouts) against a few kB in the
// mlp and cnn.
func (k ModelKind) maxEvalBatch() int {
	if k == ModelResNet {
		return 64
	}
	return 512
}
