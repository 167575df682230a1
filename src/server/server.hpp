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
// io-threads N > 1 (io_threads.hpp): N - 1 I/O threads own the
// connections' sockets; the main thread never polls them. Their messages
// (a connection read, a write done, a socket let go) wake the loop through
// one uv_async_t, whose callback runs them (on_io_message): the requests
// run there, in each client's order; the replies are handed to the threads
// in prepare, where flush_pending would write them, and the threads are
// woken once for all the jobs of the iteration (kick).
//
// TLS (tls_context.hpp, tls_session.hpp): with tls-port set, a second set of
// listeners on the same bind addresses accepts connections that speak TLS;
// port 0 serves TLS alone. The context is built before listening (a bad
// certificate stops start-up) and rebuilt by CONFIG SET of a tls-* file or
// option, as Redis's applyTlsCfg; CONFIG SET tls-port listens anew, and
// CONFIG SET bind rebinds both ports.
//
// A script past busy-reply-threshold calls serve_while_busy() from its
// hook (engine/busy_loop.hpp): libuv's loop cannot be run from inside one
// of its callbacks, so it polls the listeners and the connections itself
// (without waiting), accepts, reads and runs what arrived through the same
// Connection code, and writes the replies; the connection whose request
// runs the script is left alone, and no timer, signal or blocked client is
// served until the script ends. libuv's own watchers stay as they are: a
// socket drained meanwhile reads as EAGAIN in the loop after. Threaded
// connections go on being read and written by their threads: it runs the
// threads' messages instead of polling them.

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
#include "server/pipe_watch.hpp"
#include "server/replica_link.hpp"
#include "server/tls_context.hpp"

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
  void forget_flush(Connection* conn) override;
  void watch_soft_limit(uint64_t id) override;
  void connection_closed(Connection* conn) override;
  void evict_clients() override;
  bool io_threaded() const override { return io_threads_ != nullptr; }
  IoThreads& io_threads() override { return *io_threads_; }

  // BusyLoop.
  void serve_while_busy() override;

 private:
  static void on_connection(uv_stream_t* listener, int status);
  static void on_tls_connection(uv_stream_t* listener, int status);
  static void on_prepare(uv_prepare_t* h);
  static void on_check(uv_check_t* h);
  // io-threads > 1: a message of an I/O thread.
  void on_io_message(const IoMessage& m);
  // Before a batch of them runs: reads the clock for the batch
  // (io_batch_ms), and starts the cache misses of the first key
  // of each request the threads parsed (as Valkey 8 prefetches a batch's
  // keys), so that they overlap instead of each stalling its command.
  void prefetch_batch(const IoThreads::Batch& batch);
  // Stops the I/O threads (shutdown): the sockets they let go are closed,
  // the others become the main thread's alone.
  void stop_io_threads();
  static void on_signal(uv_signal_t* h, int signum);
  static void on_child(uv_signal_t* h, int signum);
  static void on_snapshot_timer(uv_timer_t* h);
  // Replication's cron (replication/primary.hpp), once a second while it
  // has replicas or a backlog.
  static void on_repl_timer(uv_timer_t* h);
  // Evicts the next slice while an eviction is pending (engine/evictor.hpp).
  static void on_evict_idle(uv_idle_t* h);
  static void on_release_idle(uv_idle_t* h);

  using Listeners = std::vector<std::unique_ptr<uv_tcp_t>>;
  // Listens on the configured addresses at start-up and lets CONFIG SET
  // bind / port / tls-port rebind and the tls-* options rebuild the TLS
  // context (config::Config::set_live_apply).
  bool listen();
  // Listens on cfg's addresses at port into `into` (tls: its connections
  // speak TLS); on a failure logs it, closes what it opened and returns
  // false.
  bool listen_on(const config::Values& cfg, int64_t port, bool tls, Listeners& into);
  // Closes the listeners of one kind and listens as cfg says (none for
  // port 0).
  bool relisten(const config::Values& cfg, bool tls);
  static void close_listeners(Listeners& listeners);
  // INFO's tcp_port: port, or tls-port when port is 0 (as Redis).
  void note_listening_port(const config::Values& cfg);
  // Redis's applyTlsCfg: with TLS in use, the context is rebuilt from cfg;
  // "" or Redis's error reason.
  std::string apply_tls(const config::Values& cfg);
  void accept(uv_stream_t* listener, bool tls);
  // Accepts what waits on listener without the loop (serve_while_busy).
  void accept_now(uv_tcp_t* listener, bool tls);
  // A connection just accepted: refused past maxclients or by protected
  // mode, else registered.
  void admit(Connection* conn);
  // SHUTDOWN NOSAVE while a script is busy: the process ends at once.
  [[noreturn]] void exit_while_busy();
  void flush_pending();
  // What the iteration so far leaves to send: tracking's BCAST
  // invalidations, the AOF records, the replicas' GETACK for a WAIT, then
  // the replies (flush_pending). In the prepare phase, and before each
  // expiry cycle.
  void flush_iteration();
  // The replicas' outputs queued for a flush, sent now (between an expiry
  // cycle's chunks); no other connection's, nor anything that runs a
  // command.
  void flush_replicas();
  void shut_down();
  // Called at the start of each iteration's prepare phase: the iteration
  // that ended here (prepare to prepare, less the time blocked in poll)
  // counts in the loop_iteration maximum, in wall time only (the thread's
  // CPU clock is a system call, a microsecond or two: too dear for every
  // iteration of a client sending one command at a time).
  void meter_iteration();

  uv_loop_t loop_;
  // meter_iteration()'s readings at the previous prepare (uv_hrtime ns; 0: none yet).
  uint64_t iteration_wall_ns_ = 0;
  uint64_t iteration_idle_ns_ = 0;
  Listeners listeners_;
  Listeners tls_listeners_;
  TlsContext tls_;
  uv_prepare_t prepare_;
  // Started only while the loop trace is on: poll's wait and its callbacks
  // are recorded when they end (on_check).
  uv_check_t check_;
  uint64_t trace_prepare_end_ns_ = 0;
  uint64_t trace_idle_ns_ = 0;
  uv_idle_t evict_idle_;  // active while an eviction is pending: poll does not block
  // Active while the arena has emptied chunks to give back, or freed big
  // arrays wait to be unmapped (core/page_allocator.hpp): one step of each
  // a loop iteration, between the clients' events.
  uv_idle_t release_idle_;
  // Active for one iteration while replication has work for the next (a
  // replica's snapshot can take more, a snapshot loads): poll does not block.
  uv_idle_t repl_idle_;
  uv_signal_t sigterm_;
  uv_signal_t sigint_;
  uv_signal_t sigchld_;
  uv_timer_t snapshot_timer_;
  uv_timer_t repl_timer_;
  std::unique_ptr<ExpiryCycle> expiry_;
  std::unique_ptr<ClientsCron> clients_cron_;
  std::unique_ptr<AgingCron> aging_cron_;
  std::unique_ptr<ReplicaLink> replica_link_;  // REPLICAOF's link to a primary
  std::unique_ptr<PipeWatch> pipe_watch_;      // a diskless sync's pipe (replication/diskless_sync.hpp)
  std::vector<Connection*> flush_list_;  // queue_flush's, in order; null: freed since
  std::unique_ptr<IoThreads> io_threads_;  // null with io-threads 1
  std::vector<pollfd> busy_fds_;     // serve_while_busy's scratch: listeners first,
  std::vector<uint64_t> busy_ids_;   // then connections by id
  bool stopping_ = false;
};

}  // namespace lawnkv::server
