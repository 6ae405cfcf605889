import { SignInScreen } from './sign-in-screen.tsx';

export default function SignInPage() {
  return <SignInScreen intent="login" />;
}
