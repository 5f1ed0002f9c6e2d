! hpcshim.f90 - Fortran annotations for hpcshim (module hpcshim).
!
!   use hpcshim
!   call hpc_thread_name('solver')     ! labels this thread in the results
!   call hpc_begin('solve')
!   ...
!   call hpc_end('solve')
!   if (hpc_active()) ...              ! .true. when this thread is counted
!
! Regions are per thread and nest, exactly as HPC_BEGIN/HPC_END in C
! (see hpcshim.h).  Trailing blanks of a name are ignored, so a blank-
! padded CHARACTER variable names the same region as its trimmed value;
! leading blanks are kept.  A CHAR(0) in a name ends it.
!
! Link with libhpcshim_fortran (its C functions reach the shim through weak
! references): without the shim preloaded the program runs unchanged and
! the calls do nothing.  Build:
!   gfortran app.f90 -I$prefix/include -L$prefix/lib -lhpcshim_fortran \
!            -Wl,-rpath,$prefix/lib
module hpcshim
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_size_t
  implicit none
  private
  public :: hpc_begin, hpc_end, hpc_thread_name, hpc_active

  interface
    subroutine c_begin(name, length) bind(C, name='hpcshim_fortran_begin')
      import :: c_char, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value :: length
    end subroutine c_begin

    subroutine c_end(name, length) bind(C, name='hpcshim_fortran_end')
      import :: c_char, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value :: length
    end subroutine c_end

    subroutine c_thread_name(name, length) &
        bind(C, name='hpcshim_fortran_thread_name')
      import :: c_char, c_size_t
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_size_t), value :: length
    end subroutine c_thread_name

    function c_active() bind(C, name='hpcshim_fortran_active')
      import :: c_int
      integer(c_int) :: c_active
    end function c_active
  end interface

contains

  !> Opens region `name` on the calling thread.
  subroutine hpc_begin(name)
    character(len=*), intent(in) :: name
    call c_begin(name, len(name, kind=c_size_t))
  end subroutine hpc_begin

  !> Closes the innermost open region `name` on the calling thread.
  subroutine hpc_end(name)
    character(len=*), intent(in) :: name
    call c_end(name, len(name, kind=c_size_t))
  end subroutine hpc_end

  !> Names the calling thread in the results (the last call wins).
  subroutine hpc_thread_name(name)
    character(len=*), intent(in) :: name
    call c_thread_name(name, len(name, kind=c_size_t))
  end subroutine hpc_thread_name

  !> .true. when the calling thread is being counted by the shim.
  logical function hpc_active()
    hpc_active = c_active() /= 0
  end function hpc_active

end module hpcshim
