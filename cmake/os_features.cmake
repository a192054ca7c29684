# The system calls src/net and src/base use where the system has them, each found by a check
# rather than by the system's name; without one, the code takes its POSIX fallback. Sets
# CALLWIRE_OS_FEATURES: a list of NAME=1 for the compile definitions of those two modules.
# CALLWIRE_PORTABLE finds nothing, so a Linux build runs every fallback (docs/porting.md).
# Also sets CALLWIRE_LOOP_FD_SHOWS_ALL, for the host-loop tests: whether an event loop's one
# descriptor shows every socket (epoll), so that an idle host may sleep on it alone.
include(CheckSymbolExists)

set(CALLWIRE_OS_FEATURES)
set(_callwire_checks
    "CALLWIRE_HAVE_EPOLL|epoll_create1|sys/epoll.h"
    "CALLWIRE_HAVE_EVENTFD|eventfd|sys/eventfd.h"
    "CALLWIRE_HAVE_ACCEPT4|accept4|sys/socket.h"
    "CALLWIRE_HAVE_SOCK_CLOEXEC|SOCK_CLOEXEC|sys/socket.h"
    "CALLWIRE_HAVE_MSG_NOSIGNAL|MSG_NOSIGNAL|sys/socket.h"
    "CALLWIRE_HAVE_POLLRDHUP|POLLRDHUP|poll.h"
    "CALLWIRE_HAVE_MREMAP|mremap|sys/mman.h"
    "CALLWIRE_HAVE_GETRANDOM|getrandom|sys/random.h")
# Not Linux's: a fallback of its own where MSG_NOSIGNAL is missing (the BSDs, macOS).
set(_callwire_portable_checks "CALLWIRE_HAVE_SO_NOSIGPIPE|SO_NOSIGPIPE|sys/socket.h")

set(CMAKE_REQUIRED_DEFINITIONS -D_GNU_SOURCE)
set(_callwire_all ${_callwire_portable_checks})
if(NOT CALLWIRE_PORTABLE)
  list(APPEND _callwire_all ${_callwire_checks})
endif()
foreach(check IN LISTS _callwire_all)
  string(REPLACE "|" ";" parts "${check}")
  list(GET parts 0 name)
  list(GET parts 1 symbol)
  list(GET parts 2 header)
  check_symbol_exists(${symbol} ${header} ${name})
  if(${name})
    list(APPEND CALLWIRE_OS_FEATURES ${name}=1)
  endif()
endforeach()
unset(CMAKE_REQUIRED_DEFINITIONS)
if("CALLWIRE_HAVE_EPOLL=1" IN_LIST CALLWIRE_OS_FEATURES)
  set(CALLWIRE_LOOP_FD_SHOWS_ALL 1)
else()
  set(CALLWIRE_LOOP_FD_SHOWS_ALL 0)
endif()
if(CALLWIRE_PORTABLE)
  message(STATUS "callwire: portable build, POSIX only in src/net and src/base")
endif()
