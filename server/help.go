package server

import (
	"flag"
	"fmt"
	"strings"
)

// HelpError is what ParseFlags returns for -h, -help or --help: not a
// failure, so the command line prints Flags and exits 0.
type HelpError struct {
	Command string // the flag set's name: serve, seed, apikey…
	Flags   string // FlagHelp of that set
}

func (h *HelpError) Error() string { return h.Command + ": help requested" }

// EnvName is the environment variable that sets a flag when the command
// line does not: LAUNCHDIR_ and the name upper-cased, dashes as underscores.
func EnvName(flagName string) string {
	return "LAUNCHDIR_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// FlagHelp lists a flag set in the order flag prints it (sorted), each
// with its type, default and the LAUNCHDIR_* variable that also sets it.
func FlagHelp(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(&b, "  -%s", f.Name)
		if typ != "" {
			fmt.Fprintf(&b, " %s", typ)
		}
		fmt.Fprintf(&b, "   [%s]\n      %s", EnvName(f.Name), usage)
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" && f.DefValue != "0s" {
			fmt.Fprintf(&b, " (default %s)", f.DefValue)
		}
		b.WriteString("\n")
	})
	if b.Len() == 0 {
		return "  (no flags)\n"
	}
	return b.String()
}

// ServeFlagHelp is the serve command's flags with their defaults.
func ServeFlagHelp() string { return FlagHelp(DefaultConfig().flags()) }
