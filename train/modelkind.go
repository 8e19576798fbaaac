package train

// ModelKind names a model normtop trains (Config.Model, --model). Its
// methods answer what the trainer, the data loader, the validation and cmd
// ask of it, so that no one switches on the name.
type ModelKind string

// The models.
const (
	ModelMLP         ModelKind = "mlp"
	ModelCNN         ModelKind = "cnn"
	ModelTransformer ModelKind = "transformer"
	ModelClassifier  ModelKind = "classifier"
	ModelLSTM        ModelKind = "lstm"
)

// OnImages reports whether the model trains on MNIST images (mlp, cnn).
func (k ModelKind) OnImages() bool { return k == ModelMLP || k == ModelCNN }

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
