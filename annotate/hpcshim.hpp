/* hpcshim.hpp - C++ scopes over the hpcshim annotations (public API).
 *
 *   #include <hpcshim.hpp>
 *
 *   void solve() {
 *       HPC_FUNCTION();                region "solve" until solve() returns
 *       {
 *           HPC_SCOPE("halo");         region "halo" until the block ends
 *           exchange();                (an exception leaving it ends it too)
 *       }
 *       hpcshim::scope s{"step " + std::to_string(i)};   runtime name
 *   }
 *
 * Everything in <hpcshim.h> is available as well (HPC_BEGIN, HPC_REGION,
 * HPC_THREAD_NAME, HPC_ACTIVE...).
 *
 * A scope begins its region when it is constructed and ends it in its
 * destructor, so a return, break or exception that leaves the block closes
 * the region in the right order (inner scopes first).  Scopes can be
 * neither copied nor moved.
 *
 * HPC_SCOPE with a string literal and HPC_FUNCTION use the same per-call-
 * site cached handle as the C macros; without the shim they cost what
 * HPC_BEGIN + HPC_END cost (one load and one branch each).
 * hpcshim::scope(const char *) keeps the pointer: the string must live and
 * stay unchanged until the scope ends.  hpcshim::scope(const std::string &)
 * copies the name (only when the shim is loaded), so a temporary is fine.
 *
 * HPCSHIM_DISABLE compiles the macros out and leaves hpcshim::scope an
 * empty class, so code that names it directly still builds.
 */
#ifndef HPCSHIM_HPP
#define HPCSHIM_HPP

#include <cstddef>
#include <cstring>
#include <string>

#include "hpcshim.h"

#define HPCSHIM__CXX_CAT2(a, b) a##b
#define HPCSHIM__CXX_CAT(a, b) HPCSHIM__CXX_CAT2(a, b)
#ifdef __COUNTER__ /* two scopes on one line (from one macro) stay distinct */
#define HPCSHIM__CXX_VAR HPCSHIM__CXX_CAT(hpcshim__scope_, __COUNTER__)
#else
#define HPCSHIM__CXX_VAR HPCSHIM__CXX_CAT(hpcshim__scope_, __LINE__)
#endif

namespace hpcshim {

#if defined(HPCSHIM_DISABLE)

class scope {
public:
	explicit scope(const char *) noexcept {}
	explicit scope(const std::string &) noexcept {}
	scope(struct hpcshim_site *, const char *) noexcept {}
	scope(const scope &) = delete;
	scope &operator=(const scope &) = delete;
};

#define HPC_SCOPE(name) static_cast<void>(0)
#define HPC_FUNCTION() static_cast<void>(0)

#else /* !HPCSHIM_DISABLE */

class scope {
public:
	/* `name` is kept, not copied: it must outlive the scope. */
	explicit scope(const char *name) noexcept
		: site_(nullptr), name_(name), owned_(nullptr)
	{
		hpcshim__begin(nullptr, name_);
	}

	/* Copies the name when the shim is there, since END needs it after a
	 * temporary is gone.  Without the shim nothing is copied or begun. */
	explicit scope(const std::string &name)
		: site_(nullptr), name_(nullptr), owned_(nullptr)
	{
		if (!HPCSHIM__FN(hpcshim_region_begin))
			return;
		owned_ = new char[name.size() + 1];
		std::memcpy(owned_, name.c_str(), name.size() + 1);
		name_ = owned_;
		hpcshim__begin(nullptr, name_);
	}

	/* For HPC_SCOPE and HPC_FUNCTION: `site` is the call site's cache
	 * (null for a name that is not a literal). */
	scope(struct hpcshim_site *site, const char *name) noexcept
		: site_(site), name_(name), owned_(nullptr)
	{
		hpcshim__begin(site_, name_);
	}
	scope(struct hpcshim_site *, const std::string &name) : scope(name) {}

	~scope()
	{
		hpcshim__end(site_, name_);
		delete[] owned_;
	}

	scope(const scope &) = delete;
	scope &operator=(const scope &) = delete;

private:
	struct hpcshim_site *site_;
	const char *name_;
	char *owned_; /* the std::string constructor's copy, else null */
};

/* The site pointer is null unless `name` is a string literal (see
 * HPCSHIM__SITE in hpcshim.h); the name is evaluated once. */
#define HPC_SCOPE(name)                                                     \
	::hpcshim::scope HPCSHIM__CXX_VAR(HPCSHIM__SITE(name), (name))

/* __func__ is a constant for the function's lifetime, so it always gets a
 * call-site cache (a template instance gets its own). */
#define HPC_FUNCTION()                                                      \
	::hpcshim::scope HPCSHIM__CXX_VAR(                                  \
		__extension__({                                             \
			static struct hpcshim_site hpcshim__site;           \
			&hpcshim__site;                                     \
		}),                                                         \
		__func__)

#endif /* HPCSHIM_DISABLE */

} /* namespace hpcshim */

#endif /* HPCSHIM_HPP */
