// MODULE LIST and HELP: lawnkv loads no modules (its dehydrator is built
// in), so the list is empty, as Redis's is with none loaded. MODULE LOAD
// and UNLOAD are not served.

#include "commands/server_family.hpp"

namespace lawnkv {

namespace {

/* MODULE LIST */
void module_list_command(Call& call) { call.reply.array(0); }

/* MODULE HELP */
void module_help_command(Call& call) {
  reply_help(call, "MODULE", {"LIST", "    Return a list of loaded modules (lawnkv loads none)."});
}

}  // namespace

void register_module_command(CommandTable& t) {
  t.add({
    {.name = "module", .arity = -2, .flags = 0,
     .acl = "@slow",
     .group = "server", .since = "4.0.0", .complexity = "Depends on subcommand.",
     .summary = "A container for module commands",
     .subcommands = {
         {.name = "module|list", .arity = 2, .flags = kAdmin | kNoscript,
          .acl = "@admin @slow @dangerous",
          .group = "server", .since = "4.0.0", .complexity = "O(N) where N is the number of loaded modules.",
          .summary = "List all modules loaded by the server",
          .tips = "nondeterministic_output_order",
          .handler = module_list_command},
         {.name = "module|help", .arity = 2, .flags = kLoading | kStale,
          .acl = "@slow",
          .group = "server", .since = "5.0.0", .complexity = "O(1)",
          .summary = "Show helpful text about the different subcommands",
          .handler = module_help_command},
     }},
  });
}

}  // namespace lawnkv
