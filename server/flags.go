package server

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// envDefaults applies LAUNCHDIR_<NAME> environment variables to flags not set
// on the command line (flags win over the environment).
func envDefaults(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		key := EnvName(f.Name)
		if v, ok := os.LookupEnv(key); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %v", key, v, e)
			}
		}
	})
	return err
}

// ParseFlags parses a command's flags, then applies LAUNCHDIR_<NAME> to
// those not given; every command (serve and the CLI) follows this rule.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return &HelpError{Command: fs.Name(), Flags: FlagHelp(fs)}
	} else if err != nil {
		return fmt.Errorf("bad flags: %v (see launchdir help)", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return envDefaults(fs)
}
