import { SignInScreen } from './sign-in-screen.tsx';

/** Stands in for every page while the instance requires signing in and nobody is signed in. */
export default function RequiredSignInPage() {
  return <SignInScreen intent="login" required />;
}
