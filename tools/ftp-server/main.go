// psu-ftp-server: the FTP server behind the bundled local storage API (server/real-backends.ts).
// Users are fed at run time through a JSON file, {"<login>": "<password>", ...}, read again at
// every login, so the API adds a user by rewriting the file and no restart is needed. Each user
// is confined to <root>/<login>. Only 127.0.0.1: the control port, the passive data ports, the
// passive address announced. Why this server: docs/real-servers.md.
package main

import (
	"crypto/subtle"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	ftpserver "github.com/fclairamb/ftpserverlib"
	"github.com/spf13/afero"
)

type driver struct {
	settings  *ftpserver.Settings
	usersFile string
	root      string
}

func (d *driver) GetSettings() (*ftpserver.Settings, error) { return d.settings, nil }
func (d *driver) ClientConnected(ftpserver.ClientContext) (string, error) {
	return "psu-ftp-server", nil
}
func (d *driver) ClientDisconnected(ftpserver.ClientContext) {}
func (d *driver) GetTLSConfig() (*tls.Config, error)         { return nil, errors.New("no TLS") }

var errLogin = errors.New("login incorrect")

func (d *driver) AuthUser(_ ftpserver.ClientContext, user, pass string) (ftpserver.ClientDriver, error) {
	text, err := os.ReadFile(d.usersFile)
	if err != nil {
		return nil, errLogin
	}
	users := map[string]string{}
	if json.Unmarshal(text, &users) != nil {
		return nil, errLogin
	}
	want, ok := users[user]
	// A login is a single path element, so no user's home can be another's or outside the root.
	if !ok || subtle.ConstantTimeCompare([]byte(want), []byte(pass)) != 1 || filepath.Base(user) != user || user == ".." {
		return nil, errLogin
	}
	home := filepath.Join(d.root, user)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	return afero.NewBasePathFs(afero.NewOsFs(), home), nil
}

// The library binds passive listeners on every interface; refuse any peer but loopback on them.
func (d *driver) WrapPassiveListener(l net.Listener) (net.Listener, error) {
	return loopbackOnly{l}, nil
}

type loopbackOnly struct{ net.Listener }

func (l loopbackOnly) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if a, ok := c.RemoteAddr().(*net.TCPAddr); ok && a.IP.IsLoopback() {
			return c, nil
		}
		c.Close()
	}
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "control address")
	usersFile := flag.String("users", "", "JSON file {login: password}, read at every login")
	root := flag.String("root", "", "directory holding one home directory per login")
	pasvFrom := flag.Int("pasv-from", 0, "first passive port (0: any free port)")
	pasvTo := flag.Int("pasv-to", 0, "last passive port")
	exitWithStdin := flag.Bool("exit-with-stdin", false, "stop at EOF on stdin: the parent's pipe, closed when it dies")
	flag.Parse()
	if *usersFile == "" || *root == "" {
		log.Fatal("--users and --root are required")
	}
	settings := &ftpserver.Settings{
		ListenAddr: *listen, PublicHost: "127.0.0.1", DisableActiveMode: true, DisableSite: true,
		IdleTimeout: 300, ConnectionTimeout: 30,
	}
	if *pasvFrom > 0 {
		settings.PassiveTransferPortRange = ftpserver.PortRange{Start: *pasvFrom, End: *pasvTo}
	}
	server := ftpserver.NewFtpServer(&driver{settings: settings, usersFile: *usersFile, root: *root})
	if err := server.Listen(); err != nil {
		log.Fatal(err)
	}
	// The parent reads the port from this line.
	fmt.Printf("listening on %s\n", server.Addr())
	if *exitWithStdin {
		go func() {
			io.Copy(io.Discard, os.Stdin)
			server.Stop()
		}()
	}
	go func() {
		s := make(chan os.Signal, 1)
		signal.Notify(s, syscall.SIGINT, syscall.SIGTERM)
		<-s
		server.Stop()
	}()
	if err := server.Serve(); err != nil && !errors.Is(err, net.ErrClosed) {
		log.Fatal(err)
	}
}
