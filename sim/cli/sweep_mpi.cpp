#include "sim/cli/sweep_mpi.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "sim/app/sweep_point.hpp"
#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"

#if LINKSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace linksim::cli {

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

#if LINKSIM_HAVE_MPI
namespace {

// A rank's message to rank 0: its rows, or its error. Strings are a 64-bit length and bytes.
struct Writer {
  std::string bytes;
  void number(std::uint64_t n) { bytes.append(reinterpret_cast<const char*>(&n), sizeof n); }
  void text(const std::string& s) {
    number(s.size());
    bytes += s;
  }
};

struct Reader {
  const char* at;
  const char* end;
  std::uint64_t number() {
    std::uint64_t n = 0;
    if (end - at < static_cast<std::ptrdiff_t>(sizeof n)) throw std::runtime_error("short message");
    std::memcpy(&n, at, sizeof n);
    at += sizeof n;
    return n;
  }
  std::string text() {
    const std::uint64_t n = number();
    if (static_cast<std::uint64_t>(end - at) < n) throw std::runtime_error("short message");
    std::string s(at, n);
    at += n;
    return s;
  }
};

enum class Kind : std::uint64_t { rows = 0, input_error = 1, internal_error = 2 };

// The order in which failures are reported: before the points (0), then by point.
constexpr std::uint64_t kBeforePoints = 0;

std::string error_message(std::uint64_t order, Kind kind, const std::string& file,
                          const std::string& location, const std::string& message) {
  Writer w;
  w.number(static_cast<std::uint64_t>(kind));
  w.number(order);
  w.text(file);
  w.text(location);
  w.text(message);
  return w.bytes;
}

// MPI between construction and destruction, whichever way the command ends.
struct MpiSession {
  MpiSession() { MPI_Init(nullptr, nullptr); }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

struct Failure {
  std::uint64_t order = std::numeric_limits<std::uint64_t>::max();
  Kind kind = Kind::rows;
  std::string file, location, message;
};

}  // namespace

std::vector<std::string> gather_rows_over_ranks(
    const std::function<std::vector<std::string>(int rank, int ranks)>& work) {
  MpiSession session;
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  // The local work, its outcome serialised either way: every rank reaches the gather.
  std::string message;
  try {
    const std::vector<std::string> rows = work(rank, ranks);
    Writer w;
    w.number(static_cast<std::uint64_t>(Kind::rows));
    w.number(rows.size());
    for (const auto& r : rows)
      w.text(r);
    message = std::move(w.bytes);
  } catch (const app::SweepPointFailed& e) {
    message = error_message(e.point() + 1, Kind::input_error, e.file(), e.location(), e.message());
  } catch (const InputError& e) {
    message = error_message(kBeforePoints, Kind::input_error, e.file(), e.location(), e.message());
  } catch (const std::exception& e) {
    message = error_message(kBeforePoints, Kind::internal_error, "", "", e.what());
  }
  if (message.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    message = error_message(kBeforePoints, Kind::input_error, "", "sweep",
                            "one rank's rows exceed 2 GiB; split the grid or use more ranks");
  }

  const int length = static_cast<int>(message.size());
  std::vector<int> lengths(rank == 0 ? static_cast<std::size_t>(ranks) : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size());
  std::string all;
  if (rank == 0) {
    std::int64_t total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += lengths[r];
    }
    if (total > std::numeric_limits<int>::max()) {
      // MPI_Gatherv's displacements are ints: a larger output needs more than one gather.
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(message.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
              MPI_CHAR, 0, MPI_COMM_WORLD);

  // Rank 0 decodes; the exit code goes to everyone.
  std::vector<std::vector<std::string>> rows_by_rank(lengths.size());
  Failure first;
  if (rank == 0) {
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      Reader in{all.data() + offsets[r], all.data() + offsets[r] + lengths[r]};
      const auto kind = static_cast<Kind>(in.number());
      if (kind == Kind::rows) {
        const std::uint64_t n = in.number();
        for (std::uint64_t k = 0; k < n; ++k)
          rows_by_rank[r].push_back(in.text());
        continue;
      }
      const std::uint64_t order = in.number();
      if (order < first.order) {  // ties: the lowest rank, read first
        first = Failure{order, kind, in.text(), in.text(), in.text()};
      }
    }
  }
  int code = first.kind == Kind::rows          ? 0
             : first.kind == Kind::input_error ? kInputErrorExitCode
                                               : 1;
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank != 0) throw CommandFailed{code};
  if (first.kind == Kind::input_error) throw InputError(first.file, first.location, first.message);
  if (first.kind == Kind::internal_error) throw std::runtime_error(first.message);

  // Rank r's k-th row is point r + k x ranks (app::rank_points).
  std::size_t count = 0;
  for (const auto& rows : rows_by_rank)
    count += rows.size();
  std::vector<std::string> rows(count);
  for (std::size_t r = 0; r < rows_by_rank.size(); ++r) {
    for (std::size_t k = 0; k < rows_by_rank[r].size(); ++k)
      rows[r + k * rows_by_rank.size()] = std::move(rows_by_rank[r][k]);
  }
  return rows;
}

#else

std::vector<std::string> gather_rows_over_ranks(
    const std::function<std::vector<std::string>(int rank, int ranks)>&) {
  throw InputError("", "sweep",
                   "this linksim was built without MPI, so under mpirun or srun every rank would "
                   "run the whole sweep; run it without a launcher (-j N for threads), or "
                   "rebuild with MPI (scripts/install-deps.sh installs libopenmpi-dev)");
}

#endif

}  // namespace linksim::cli
