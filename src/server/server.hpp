#pragma once
// The server: one libuv loop that owns the listeners, the connections, the
// expiry cycle and the signal handlers, around the ServerState that commands
// work on.
//
// Per loop iteration: poll -> read callbacks (each parses and runs every
// complete request of its read) -> expiry timer/idle (reap a budget of due
// keys), eviction idle (evict a slice past maxmemory) and clients cron timer
// (idle clients, soft output limits; only while it has work) -> prepare
// (serve blocked clients, flush every connection with pending output, act on
// SHUTDOWN, arm the expiry wake-up, the clients cron and the keys' aging
// passes) -> poll again.
//
// Snapshots (durability/snapshots.hpp): the dataset is loaded from dir/
// dbfilename before listening (a bad file stops the server); a BGSAVE child
// is reaped on SIGCHLD and by the snapshot timer, which runs every 100 ms
// only while there is something to watch (a child, a scheduled BGSAVE, or
// unsaved changes under save rules) and starts the BGSAVEs the rules ask
// for. SIGTERM and SIGINT save first when save rules are set, as Redis.
//
// io-threads N > 1 (io_threads.hpp): the connections that poll found
// readable are read (and their first request parsed) by the I/O threads in
// the check phase, right after poll, when io-threads-do-reads is yes (by the
// main thread otherwise); then the main thread runs their requests, in the
// order poll reported them. The replies are written by the I/O threads in
// prepare, where flush_pending would write them. The main thread waits for
// the threads at both points, so no command runs while a thread works.
//
// A script past busy-reply-threshold calls serve_while_busy() from its
// hook (engine/busy_loop.hpp): libuv's loop cannot be run from inside one
// of its callbacks, so it polls the listeners and the connections itself
// (without waiting), accepts, reads and runs what arrived through the same
// Connection code, and writes the replies; the connection whose request
// runs the script is left alone, and no timer, signal or blocked client is
// served until the script ends. libuv's own watchers stay as they are: a
// socket drained meanwhile reads as EAGAIN in the loop after.

#include <poll.h>
#include <uv.h>

#include <memory>
#include <vector>

#include "core/log.hpp"
#include "engine/context.hpp"
#include "resp/parser.hpp"
#include "server/aging_cron.hpp"
#include "server/clients_cron.hpp"
#include "server/expiry_cycle.hpp"
#include "server/host.hpp"
#include "server/io_threads.hpp"
#include "server/replica_link.hpp"

namespace lawnkv::server {

class Connection;

class Server final : public ServerHost, public BusyLoop {
 public:
  Server(ServerState& state, Logger& log);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Listens on the configured addresses and runs until SHUTDOWN or a signal.
  // Returns the process exit code.
  int run();

  uv_loop_t* loop() override { return &loop_; }
  ClientsCron& clients_cron() { return *clients_cron_; }

  // ServerHost.
  void queue_flush(Connection* conn) override;
  void watch_soft_limit(uint64_t id) override;
  void connection_closed(Connection* conn) override;
  void evict_clients() override;
  bool io_threaded() const override { return io_threads_ != nullptr; }
  void read_ready(Connection* conn) override { read_batch_.push_back(conn); }

  // BusyLoop.
  void serve_while_busy() override;

 private:
  static void on_connection(uv_stream_t* listener, int status);
  static void on_prepare(uv_prepare_t* h);
  // io-threads > 1: reads the connections poll found readable.
  static void on_check(uv_check_t* h);
  static void on_signal(uv_signal_t* h, int signum);
  static void on_child(uv_signal_t* h, int signum);
  static void on_snapshot_timer(uv_timer_t* h);
  // Replication's cron (replication/primary.hpp), once a second while it
  // has replicas or a backlog.
  static void on_repl_timer(uv_timer_t* h);
  // Evicts the next slice while an eviction is pending (engine/evictor.hpp).
  static void on_evict_idle(uv_idle_t* h);
  static void on_release_idle(uv_idle_t* h);

  // Listens on the configured addresses at start-up and lets CONFIG SET
  // bind / port rebind (config::Config::set_live_apply).
  bool listen();
  // Listens on cfg's addresses and port; on a failure logs it, closes what
  // it opened and returns false.
  bool listen_on(const config::Values& cfg);
  // Closes the listeners and listens as cfg says (none for port 0).
  bool relisten(const config::Values& cfg);
  void close_listeners();
  void accept(uv_stream_t* listener);
  // Accepts what waits on listener without the loop (serve_while_busy).
  void accept_now(uv_tcp_t* listener);
  // A connection just accepted: refused past maxclients or by protected
  // mode, else registered.
  void admit(Connection* conn);
  // SHUTDOWN NOSAVE while a script is busy: the process ends at once.
  [[noreturn]] void exit_while_busy();
  void flush_pending();
  // flush_pending's rounds with io-threads > 1: the writes of each round go
  // to the I/O threads together.
  void flush_pending_threaded();
  void shut_down();

  uv_loop_t loop_;
  std::vector<std::unique_ptr<uv_tcp_t>> listeners_;
  uv_prepare_t prepare_;
  uv_idle_t evict_idle_;  // active while an eviction is pending: poll does not block
  // Active while the arena has emptied chunks to give back: one step of a
  // chunk's walk a loop iteration, between the clients' events.
  uv_idle_t release_idle_;
  uv_signal_t sigterm_;
  uv_signal_t sigint_;
  uv_signal_t sigchld_;
  uv_timer_t snapshot_timer_;
  uv_timer_t repl_timer_;
  std::unique_ptr<ExpiryCycle> expiry_;
  std::unique_ptr<ClientsCron> clients_cron_;
  std::unique_ptr<AgingCron> aging_cron_;
  std::unique_ptr<ReplicaLink> replica_link_;  // REPLICAOF's link to a primary
  std::vector<uint64_t> flush_ids_;
  std::unique_ptr<IoThreads> io_threads_;  // null with io-threads 1
  bool threaded_reads_ = false;            // io-threads-do-reads
  uv_check_t check_;
  // Threaded connections readable in this iteration (valid until the
  // closing phase: a connection is deleted only there), and the scratch
  // vectors the batches run from (swapped out while in use, so a nested
  // flush under a busy script gets its own).
  std::vector<Connection*> read_batch_, read_scratch_, write_scratch_;
  std::vector<pollfd> busy_fds_;     // serve_while_busy's scratch: listeners first,
  std::vector<uint64_t> busy_ids_;   // then connections by id
  bool stopping_ = false;
};

}  // namespace lawnkv::server
