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
)

// OnImages reports whether the model trains on MNIST images (mlp, cnn).
func (k ModelKind) OnImages() bool { return k == ModelMLP || k == ModelCNN }

// OnTokens reports whether the model is a Transformer over tokens
// (transformer: a language model; classifier: documents to classes), whose
// sizes are Config's Layers, DModel, Heads and SeqLen.
func (k ModelKind) OnTokens() bool { return k == ModelTransformer || k == ModelClassifier }

// Valid reports whether k names a model.
func (k ModelKind) Valid() bool { return k.OnImages() || k.OnTokens() }
