package trust

import (
	"fmt"
	"slices"
	"strings"
)

// Some programs run their command where zk cannot read the files it
// runs: in a container (an image's files, and the vault's folders mounted
// into it: docker run -v .:/w img sh /w/run.sh runs the vault's run.sh
// under another name; a Dockerfile's RUN lines, built by docker build . or
// compose up), on another machine (ssh host CMD), in a cluster's pod
// (kubectl exec), in a virtual machine a Vagrantfile describes. zk does
// not read an image, a remote host or a compose file's services: such a
// command is opaque, saying why. The subcommands that run nothing (docker
// ps, kubectl get) are not, when nothing before them changes what the
// program reads (docker --config DIR, kubectl --kubeconfig FILE, whose
// exec: entry runs a program).

// elsewhere lists those programs: the reason, said of the program and
// its subcommand, and the subcommands that run no code of the vault's,
// taken only as their first argument.
var elsewhere = map[string]struct {
	why  string
	safe []string
}{
	"docker":         {why: "runs code in a container (an image, a Dockerfile, the folders it mounts)", safe: containerSafe},
	"podman":         {why: "runs code in a container (an image, a Containerfile, the folders it mounts)", safe: containerSafe},
	"nerdctl":        {why: "runs code in a container (an image, a Dockerfile, the folders it mounts)", safe: containerSafe},
	"docker-compose": {why: "runs code in containers (a compose file's images, builds and mounts)"},
	"podman-compose": {why: "runs code in containers (a compose file's images, builds and mounts)"},
	"buildah":        {why: "runs a Containerfile's steps or a command in a container", safe: []string{"images", "containers", "version", "info", "inspect"}},
	"systemd-nspawn": {why: "runs its command in a container"},
	"lxc":            {why: "runs code in a container or a virtual machine", safe: []string{"list", "info", "version"}},
	"incus":          {why: "runs code in a container or a virtual machine", safe: []string{"list", "info", "version"}},
	"kubectl":        {why: "runs code in a cluster's containers, or a program its kubeconfig names", safe: kubectlSafe},
	"oc":             {why: "runs code in a cluster's containers, or a program its kubeconfig names", safe: kubectlSafe},
	"ssh":            {why: "runs its command on another machine"},
	"mosh":           {why: "runs its command on another machine"},
	"vagrant":        {why: "runs a Vagrantfile's Ruby, and commands in a virtual machine", safe: []string{"version", "global-status"}},
}

var (
	containerSafe = []string{"ps", "images", "version", "info", "inspect", "logs", "stats", "top", "port", "history",
		"events", "search", "pull", "stop", "kill", "rm", "rmi", "tag"}
	kubectlSafe = []string{"get", "describe", "logs", "version", "top", "explain", "api-resources", "api-versions",
		"cluster-info", "events", "wait"}
)

// runsElsewhere says, of the program base given args, why what it runs
// is out of zk's sight, or "" when it runs nothing or is not one of
// elsewhere's. A global option (docker --config, kubectl --kubeconfig)
// makes a safe subcommand unsafe, and so does a kubeconfig named later.
func runsElsewhere(base string, args []string) string {
	e, ok := elsewhere[base]
	if !ok {
		return ""
	}
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	kubeconfig := slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--kubeconfig") })
	if slices.Contains(e.safe, sub) && !kubeconfig {
		return ""
	}
	name := base
	if sub != "" && !strings.HasPrefix(sub, "-") && len(e.safe) > 0 {
		name += " " + sub
	}
	return fmt.Sprintf("`%s` %s, which zk does not read", name, e.why)
}

// systemdRun reads systemd-run's options. Its command runs as a service
// of the service manager, in / (or, --user, the home folder), not the
// folder zk reads its names from, unless --same-dir (-d), --scope (run by
// systemd-run itself), --shell or a working directory says otherwise:
// opaque, where zk bound the vault's run.sh and the service ran another,
// or one of the vault's by another name. -H and -M run it on another
// machine or in a container; a unit setting (-p) other than a limit may
// run a command (ExecStartPre=), change the root or the files seen
// (RootDirectory=, BindPaths=) or the environment; -E's assignments are
// read as env's.
func (in *inspector) systemdRun(args []string) {
	here := false
	var props, envs []string
	elsewhere := ""
	for j := 0; j < len(args); j++ {
		a := args[j]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		value := func(v string, eq bool) string {
			if eq {
				return v
			}
			if j+1 < len(args) {
				j++
				return args[j]
			}
			return ""
		}
		if strings.HasPrefix(a, "--") {
			name, v, eq := strings.Cut(a, "=")
			switch {
			case name == "--same-dir" || name == "--scope" || name == "--shell":
				here = true
			case slices.Contains(systemdRunFlags, name):
			case abbreviates(name, "--host") || abbreviates(name, "--machine"):
				elsewhere = name
				value(v, eq)
			case abbreviates(name, "--property") && len(name) > 3:
				props = append(props, value(v, eq))
			case abbreviates(name, "--setenv") && len(name) > 3:
				envs = append(envs, value(v, eq))
			case abbreviates(name, "--working-directory") && len(name) > 3:
				here = true // read by chdirs
				value(v, eq)
			default:
				value(v, eq) // one zk does not know may take one
			}
			continue
		}
		for k := 1; k < len(a); k++ {
			c, rest := a[k], a[k+1:]
			if strings.IndexByte("dS", c) >= 0 {
				here = true
			}
			if strings.IndexByte("puHME", c) < 0 {
				continue
			}
			v := value(rest, rest != "")
			switch c {
			case 'p':
				props = append(props, v)
			case 'E':
				envs = append(envs, v)
			case 'H', 'M':
				elsewhere = "-" + string(c)
			}
			break
		}
	}
	if elsewhere != "" {
		in.opaque("`systemd-run %s` runs its command on another machine or in a container, which zk does not read", elsewhere)
	}
	for _, p := range props {
		name, v, _ := strings.Cut(p, "=")
		switch {
		case name == "WorkingDirectory" && !strings.HasPrefix(strings.TrimPrefix(v, "-"), "~"):
			here = true
			in.chdir(strings.TrimPrefix(v, "-"))
		case !slices.ContainsFunc(systemdLimits, func(l string) bool { return strings.HasPrefix(name, l) }):
			in.opaque("`systemd-run -p %s` is a unit setting that may run a command or change what it reads, which zk does not read", name)
		}
	}
	for _, e := range envs {
		name, v, _ := strings.Cut(e, "=")
		switch {
		case searchVar(name):
			in.opaque("`systemd-run -E %s` changes where commands are looked up", e)
		case runVar(name, v):
			in.opaque("`systemd-run -E %s` has the command run a program or read a file zk does not", e)
		}
	}
	if !here {
		in.opaque("`systemd-run` runs its command in / or the home folder, not the vault's, unless given --same-dir")
	}
}

// systemdRunFlags are systemd-run's long options that take no value.
var systemdRunFlags = []string{"--user", "--system", "--pty", "--pipe", "--quiet", "--wait", "--collect",
	"--remain-after-exit", "--no-ask-password", "--no-block", "--send-sighup", "--ignore-failure", "--verbose", "--help", "--version"}

// systemdLimits are the unit settings that limit or describe a command,
// running nothing and changing no file it reads: those of a benchmark's.
var systemdLimits = []string{"Memory", "CPU", "IO", "Tasks", "Limit", "Nice", "OOM", "Runtime", "Timeout", "Kill",
	"Description", "AllowedCPUs", "AllowedMemoryNodes", "StartupCPU", "StartupIO", "CPUSchedulingPolicy", "CPUSchedulingPriority"}
